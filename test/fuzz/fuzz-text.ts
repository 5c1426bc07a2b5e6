/** Text the HTTP fuzzer draws from: ASCII, any Unicode or bytes, header values, integer-ish strings. */
import fc from 'fast-check';

export const ascii = (maxLength: number) => fc.string({ unit: 'grapheme-ascii', maxLength });
export const anyText = (maxLength: number) =>
  fc.oneof(
    ascii(maxLength),
    fc.string({ unit: 'binary', maxLength }),
    fc.string({ unit: 'grapheme', maxLength }),
  );
/** Header values Node's parser lets through: visible ASCII, space, tab and obs-text (0x80-0xFF). */
export const headerValue = fc
  .array(
    fc.oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.constant(0x09), fc.integer({ min: 0x80, max: 0xff })),
    { maxLength: 200 },
  )
  .map((codes) => String.fromCharCode(...codes).trim());
export const intText = fc.oneof(
  fc.integer({ min: -5, max: 100 }).map(String),
  fc.constantFrom(
    '0',
    '1',
    '50',
    '51',
    '1000000000',
    '99999999999999999999999',
    '1e3',
    '1.5',
    '-0',
    '0x10',
    ' 2',
  ),
);
