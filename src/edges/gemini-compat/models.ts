import type { GeminiModel, GeminiModels } from '../../base/contract/gemini.js';
import type { Catalog, CatalogEntry } from '../../capabilities/catalog/index.js';
import { generationModels, isGenerationModel, modelFacts } from '../../capabilities/catalog/index.js';
import { geminiModelNotFound } from './generate-content.js';

const METHODS = ['generateContent', 'streamGenerateContent'];

/** One catalog model (or one of its aliases) in Google's Model shape. */
function geminiModelOf(model: CatalogEntry, name = model.id): GeminiModel {
  const what = `${model.modes.join(', ')}; aspects ${model.aspects.join(' ')}; sizes ${model.sizes.join(' ')}; up to ${model.maxCount} images`;
  return {
    name: `models/${name}`,
    baseModelId: model.id,
    version: model.upstreamModel,
    displayName: model.displayName ?? model.id,
    description: name === model.id ? `Atelier model ${model.id} (${what})` : `Alias of ${model.id} (${what})`,
    // Atelier counts no tokens: the prompt's own limit is 8,000 characters.
    inputTokenLimit: 8000,
    outputTokenLimit: 0,
    supportedGenerationMethods: METHODS,
    // Atelier's catalog facts, as on GET /api/v1/models (Google's clients ignore extra fields).
    ...modelFacts(model),
  };
}

/** GET /v1beta/models: the catalog's models, then each alias as a model of its own. */
export function geminiModelList(catalog: Catalog): GeminiModels {
  return {
    models: [
      ...generationModels(catalog).map((model) => geminiModelOf(model)),
      ...generationModels(catalog).flatMap((model) =>
        model.aliases.map((alias) => geminiModelOf(model, alias)),
      ),
    ],
  };
}

/** GET /v1beta/models/{model}: a model or an alias, else Google's 404 (NOT_FOUND). */
export function geminiModel(catalog: Catalog, id: string): GeminiModel {
  const name = id.replace(/^models\//, '');
  const model = catalog.get(name);
  if (!model || !isGenerationModel(model)) throw geminiModelNotFound(catalog, name);
  return geminiModelOf(model, name);
}
