// The gallery app of the MCP server (MCP Apps; src/edges/mcp/gallery-app.ts): web/src/mcp-gallery
// bundled with esbuild (the extension's App class included) and inlined, script and styles, into one
// HTML file, dist/mcp-app/gallery.html, which the server answers for ui://atelier/gallery.html. A
// host renders it in a sandboxed frame that may load nothing else, so nothing is left outside it.
// Run by `npm run build` (scripts/ensure-build.mjs) after tsc and vite.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const GALLERY_OUTPUT = join('dist', 'mcp-app', 'gallery.html');

/**
 * Zod (which the extension's App validates messages with) re-exports all its locales, half the page's
 * weight; its messages are English by default, so the other locales are left out.
 */
const englishOnly = {
  name: 'zod-english-only',
  setup(build) {
    build.onLoad({ filter: /[\\/]zod[\\/]v4[\\/]locales[\\/]index\.js$/ }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: dirname(args.path),
    }));
  },
};

/** Builds the page from `root`'s sources into `outRoot`/dist/mcp-app; answers its size in bytes. */
export async function buildMcpApp(root, outRoot = root) {
  const { build } = await import('esbuild');
  const source = join(root, 'web', 'src', 'mcp-gallery');
  const bundle = await build({
    entryPoints: [join(source, 'main.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'warning',
    plugins: [englishOnly],
  });
  const script = bundle.outputFiles[0].text
    // Inline: nothing in the script may end the element or open a comment in it.
    .replaceAll('</script', '<\\/script')
    .replaceAll('<!--', '<\\!--');
  const styles = readFileSync(join(source, 'gallery.css'), 'utf8').replaceAll('</style', '<\\/style');
  const template = readFileSync(join(source, 'gallery.html'), 'utf8');
  const html = template.replace('/* gallery.css */', () => styles).replace('/* main.js */', () => script);
  if (html === template) throw new Error('web/src/mcp-gallery/gallery.html lost its placeholders');
  mkdirSync(join(outRoot, 'dist', 'mcp-app'), { recursive: true });
  writeFileSync(join(outRoot, GALLERY_OUTPUT), html);
  return Buffer.byteLength(html);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = fileURLToPath(new URL('..', import.meta.url));
  await buildMcpApp(root);
}
