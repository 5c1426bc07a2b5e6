// sharp (libvips), loaded at the first image operation rather than at start: its native addon and
// modules were a twentieth of a start's CPU, and a start touches no image. Every module of Atelier
// takes `sharp` from here; it is the package's own function (its CommonJS build, loaded with
// `require` so that the first call stays synchronous), set up once when it loads.
import { createRequire } from 'node:module';
import type SharpModule from 'sharp';

type Sharp = typeof SharpModule;

const require = createRequire(import.meta.url);
let loaded: Sharp | undefined;

function load(): Sharp {
  if (loaded) return loaded;
  const module = require('sharp') as Sharp;
  // One libvips thread per image operation: image work runs beside the API on the same cores.
  module.concurrency(1);
  // No libvips operation cache (its default keeps up to 50 MB and 100 operations' images): every
  // image Atelier reads once per request (a reference, a result, a rendition kept in blob storage),
  // so the cache only held memory under mixed traffic (docs/benchmarks.md, M1).
  module.cache(false);
  loaded = module;
  return module;
}

/** The `sharp` function and its statics, loaded (and set up) at the first use. */
export const sharp: Sharp = new Proxy((() => undefined) as unknown as Sharp, {
  apply: (_shell, _this, args) => Reflect.apply(load(), undefined, args),
  get: (_shell, key) => Reflect.get(load(), key),
});
