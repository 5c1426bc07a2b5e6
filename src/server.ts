// The server's entry (`node dist/src/server.js`, `atelier serve`). First, before any native addon
// loads, an unsupported Node.js is refused with a clear message. Then Node's module compile cache is
// turned on: V8's code for every module loaded afterwards is kept on disk and reused by later starts
// (about a fifth of a cold start). Node's defaults apply: `NODE_COMPILE_CACHE` names the directory
// (else `<tmpdir>/node-compile-cache`), `NODE_DISABLE_COMPILE_CACHE=1` turns it off; entries are keyed
// by module content and Node version, and a cache that cannot be written only makes starts slower.
// Only then is the server's module graph loaded: a static import would be compiled before this runs.
import module from 'node:module';
import './base/runtime/require-supported-runtime.js';

module.enableCompileCache();
await import('./serve.js');
