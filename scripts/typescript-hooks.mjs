// Loads the project's TypeScript with Node.js's own type stripping (`--experimental-transform-types`,
// which also rewrites parameter properties), for the test runner (scripts/run-tests.mjs) where the
// running Node.js has it: a relative `./x.js` import of a TypeScript source resolves to `./x.ts`, as
// tsc and tsx read it, and compiled modules are kept in a compile cache between test processes. The
// hooks run in the importing thread (`module.registerHooks`), not on a loader thread as tsx's do:
// together some 1.2 s less CPU per test file than `--import tsx`.
import { existsSync } from 'node:fs';
import { enableCompileCache, registerHooks } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

enableCompileCache(process.env.NODE_COMPILE_CACHE || join(tmpdir(), 'atelier-test-compile-cache'));

registerHooks({
  resolve(specifier, context, next) {
    const parent = context.parentURL;
    if (
      parent?.startsWith('file:') &&
      specifier.endsWith('.js') &&
      (specifier.startsWith('./') || specifier.startsWith('../'))
    ) {
      const source = new URL(`${specifier.slice(0, -3)}.ts`, parent);
      if (!existsSync(fileURLToPath(new URL(specifier, parent))) && existsSync(fileURLToPath(source)))
        return next(source.href, context);
    }
    return next(specifier, context);
  },
});
