import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig, type UserConfig } from 'vite';

// The service the dev server forwards API calls to (`npm run dev` in another terminal).
const service = process.env.ATELIER_DEV_SERVICE ?? 'http://localhost:8080';

/** Dev: forward the service's paths, presenting the service's own Origin so its CSRF check passes. */
const forward = {
  target: service,
  changeOrigin: true,
  configure(proxy: {
    on(event: 'proxyReq', listener: (request: { setHeader(n: string, v: string): void }) => void): void;
  }) {
    proxy.on('proxyReq', (request) => request.setHeader('origin', new URL(service).origin));
  },
};

const config: UserConfig = {
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // Not "assets": /library is a page, and the service keeps /static/ for hashed bundles.
    assetsDir: 'static',
    target: 'es2022',
    modulePreload: { polyfill: false },
    reportCompressedSize: true,
  },
  server: { proxy: { '/api': forward, '/v1': forward, '/web/api': forward, '/files': forward } },
};

export default defineConfig(({ command }) => {
  // A build is always the production build, whatever NODE_ENV the caller runs under (the test
  // runner sets NODE_ENV=test, which would otherwise ship React's development build and JSX).
  if (command === 'build') process.env.NODE_ENV = 'production';
  return config;
});
