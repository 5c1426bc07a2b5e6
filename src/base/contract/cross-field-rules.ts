/**
 * Cross-field rules of request bodies, as JSON Schema `if`/`then` (issue 49): what the handlers
 * refuse for a combination of fields, stated in the document so a client generated from it never
 * sends such a combination. Zod has no `if`/`then`; the rules join a schema through `.meta({ allOf })`
 * and the handlers keep their own checks (and messages).
 */
import { ACTION_SETTING_FIELDS, IMAGE_ACTIONS, SETTINGS_OF } from '../domain/image-actions.js';

type JsonSchema = Record<string, unknown>;

/** The field is in the body with a value (not absent, not null). */
const given = (field: string): JsonSchema => ({
  required: [field],
  properties: { [field]: { not: { type: 'null' } } },
});
const notGiven = (field: string): JsonSchema => ({ not: given(field) });
const modeIs = (mode: string): JsonSchema => ({ required: ['mode'], properties: { mode: { const: mode } } });
const when = (conditions: JsonSchema[], then: JsonSchema): JsonSchema => ({
  if: conditions.length === 1 ? conditions[0] : { allOf: conditions },
  then,
});

/**
 * Generate: the mode and its references. Without `parentId`: text (the default) takes no imageUrls
 * and no mask; edit exactly one imageUrl; fusion two or more (the model's cap is in the catalog) and
 * no mask. With `parentId` the parent's image is the first reference: no text mode, and an edit adds
 * no reference of its own (its list may repeat the parent's URL).
 */
export const GENERATE_REFERENCE_RULES: JsonSchema[] = [
  when([notGiven('parentId'), notGiven('mode')], {
    properties: { imageUrls: { maxItems: 0 } },
    ...notGiven('maskUrl'),
  }),
  when([notGiven('parentId'), modeIs('text')], {
    properties: { imageUrls: { maxItems: 0 } },
    ...notGiven('maskUrl'),
  }),
  when([notGiven('parentId'), modeIs('edit')], {
    required: ['imageUrls'],
    properties: { imageUrls: { type: 'array', minItems: 1, maxItems: 1 } },
  }),
  when([notGiven('parentId'), modeIs('fusion')], {
    required: ['imageUrls'],
    properties: { imageUrls: { type: 'array', minItems: 2 } },
    ...notGiven('maskUrl'),
  }),
  when([given('parentId')], { properties: { mode: { enum: ['edit', 'fusion', null] } } }),
  when([given('parentId'), modeIs('edit')], { properties: { imageUrls: { maxItems: 1 } } }),
  when([given('parentId'), modeIs('fusion')], notGiven('maskUrl')),
];

/** Actions: each takes its own settings; another action's is refused (absent or null only). */
export const ACTION_SETTING_RULES: JsonSchema[] = IMAGE_ACTIONS.map((action) =>
  when([{ required: ['action'], properties: { action: { const: action } } }], {
    properties: Object.fromEntries(
      ACTION_SETTING_FIELDS.filter((field) => !SETTINGS_OF[action].includes(field)).map((field) => [
        field,
        { type: 'null' },
      ]),
    ),
  }),
);
