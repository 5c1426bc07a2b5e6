// undici (the HTTP client of every outbound call), loaded at the first call that needs it rather
// than at start: its hundred-odd modules were a tenth of a start's CPU. It is a CommonJS package, so
// `require` loads it synchronously, and it is the same instance an `import 'undici'` gives.
import { createRequire } from 'node:module';
import type * as Undici from 'undici';

const require = createRequire(import.meta.url);
let loaded: typeof Undici | undefined;

/** The undici package, loaded at the first call. */
export function undici(): typeof Undici {
  loaded ??= require('undici') as typeof Undici;
  return loaded;
}

/**
 * A dispatcher whose undici object is created by `create` at its first use: every property and
 * method is the created one's (methods bound to it), so it behaves as the dispatcher itself.
 */
export function lazyDispatcher<T extends Undici.Dispatcher>(create: () => T): T {
  let target: T | undefined;
  const real = () => {
    target ??= create();
    return target;
  };
  // Methods bound once each (every upstream call reads `dispatch`: no new function per call).
  const bound = new Map<PropertyKey, { of: unknown; fn: unknown }>();
  return new Proxy({} as T, {
    get(_shell, key) {
      const value: unknown = Reflect.get(real(), key);
      if (typeof value !== 'function') return value;
      let known = bound.get(key);
      if (known?.of !== value) {
        known = { of: value, fn: value.bind(real()) };
        bound.set(key, known);
      }
      return known.fn;
    },
    set: (_shell, key, value) => Reflect.set(real(), key, value),
    has: (_shell, key) => Reflect.has(real(), key),
  });
}
