import type { OpenAiModel, OpenAiModels } from '../../base/contract/openai.js';
import type { Catalog } from '../../capabilities/catalog/index.js';
import { generationModels, modelList } from '../../capabilities/catalog/index.js';
import { OpenAiCompatError } from './openai-errors.js';

/**
 * GET /v1/models: the catalog as GET /api/v1/models lists it, then each alias as an entry of its
 * own carrying its model's fields and `alias_of`, so pickers that list OpenAI's ids show them.
 */
export function openAiModelList(catalog: Catalog): OpenAiModels {
  const list = modelList(catalog);
  const aliases = list.data.flatMap((model) =>
    (catalog.get(model.id)?.aliases ?? []).map((alias) => ({ ...model, id: alias, alias_of: model.id })),
  );
  return { ...list, data: [...list.data, ...aliases] };
}

/** GET /v1/models/{model}: a model or an alias, else OpenAI's 404 (`model_not_found`). */
export function openAiModel(catalog: Catalog, id: string): OpenAiModel {
  const found = openAiModelList(catalog).data.find((model) => model.id === id);
  if (!found) throw modelNotFound(catalog, id);
  return found;
}

/** OpenAI's answer to an unknown model id, naming the ids that exist. */
export function modelNotFound(catalog: Catalog, id: string): OpenAiCompatError {
  const known = generationModels(catalog)
    .map((m) => m.id)
    .join(', ');
  return new OpenAiCompatError(
    404,
    `The model "${id}" does not exist; available models: ${known} (and their aliases, GET /v1/models)`,
    'model_not_found',
    'model',
  );
}
