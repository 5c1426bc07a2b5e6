/**
 * ComfyUI workflows: the API-format JSON that ComfyUI's "Save (API)" exports (`{ "<node id>":
 * { class_type, inputs, _meta } }`, an input either a value or a link `["<node id>", <output>]`),
 * read from a file the catalog names, and Atelier's fields written onto its node inputs.
 *
 * Where each field goes: the catalog entry's `comfyui.inputs` (`"<node id>.<input>"`) when it names
 * it, else found in the graph from the sampler (KSampler / KSamplerAdvanced / SamplerCustom): its
 * `positive` and `negative` links lead to the prompt and negative prompt text nodes, its
 * `latent_image` link to the latent node holding `width`, `height` and `batch_size`, and its
 * `seed` / `noise_seed` input is the seed; reference images go to the LoadImage nodes in node-id
 * order. A field the workflow cannot take fails the task with a sentence naming the catalog fix.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { isRecord } from './upstream-json.js';

export interface WorkflowNode {
  class_type: string;
  inputs: Record<string, unknown>;
  _meta?: unknown;
}
export type Workflow = Record<string, WorkflowNode>;

/** Where Atelier's fields go: `"<node id>.<input name>"` each. */
export interface WorkflowInputs {
  prompt?: string | undefined;
  negativePrompt?: string | undefined;
  width?: string | undefined;
  height?: string | undefined;
  seed?: string | undefined;
  batchSize?: string | undefined;
  images?: string[] | undefined;
}

/** A catalog entry's `comfyui` block: its explicit mapping and the negative prompt it sends. */
export interface ComfyRouteSettings {
  inputs?: WorkflowInputs | undefined;
  negativePrompt?: string | undefined;
  /** The workflow file an edit or a fusion runs, where not the route's own (`upstreamModel`). */
  workflows?: { edit?: string | undefined; fusion?: string | undefined } | undefined;
}

/** What one prompt sets: the text, the size, the seed, and the uploaded reference file names. */
export interface WorkflowValues {
  prompt: string;
  width: number;
  height: number;
  seed: number;
  images: string[];
}

const SAMPLERS = ['KSampler', 'KSamplerAdvanced', 'SamplerCustom', 'SamplerCustomAdvanced'];
const LINK_HOPS = 6;

const isLink = (value: unknown): value is [string, number] =>
  Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'number';

/** Parses an API-format workflow; a string says what is wrong with it. */
export function parseWorkflow(json: unknown): Workflow | string {
  if (!isRecord(json)) return 'it is not a JSON object of nodes';
  if (isRecord(json.nodes) || Array.isArray(json.nodes))
    return 'it is a UI workflow; export it with "Save (API)" instead';
  const workflow: Workflow = {};
  for (const [id, node] of Object.entries(json)) {
    if (!isRecord(node) || typeof node.class_type !== 'string' || !isRecord(node.inputs))
      return `node ${id} has no class_type and inputs`;
    workflow[id] = { class_type: node.class_type, inputs: node.inputs, _meta: node._meta };
  }
  return Object.keys(workflow).length > 0 ? workflow : 'it has no nodes';
}

const byNumericId = (a: string, b: string) => Number(a) - Number(b) || a.localeCompare(b);

/** The first node of `workflow` (by id) whose class is one of `classes`. */
function firstOf(workflow: Workflow, classes: readonly string[]): string | undefined {
  return Object.keys(workflow)
    .sort(byNumericId)
    .find((id) => classes.includes(workflow[id]?.class_type ?? ''));
}

/** Follows a sampler input's link to the node that holds `name` (through conditioning nodes). */
function follow(workflow: Workflow, from: unknown, name: string): string | undefined {
  let link = from;
  for (let hop = 0; hop < LINK_HOPS && isLink(link); hop++) {
    const id = link[0];
    const node = workflow[id];
    if (!node) return undefined;
    if (typeof node.inputs[name] === 'string' || typeof node.inputs[name] === 'number')
      return `${id}.${name}`;
    link = node.inputs.conditioning ?? node.inputs.samples ?? node.inputs.latent;
  }
  return undefined;
}

/** Where each field goes: the catalog's mapping where it names one, else what the graph shows. */
export function mappingOf(workflow: Workflow, explicit: WorkflowInputs = {}): WorkflowInputs {
  const sampler = firstOf(workflow, SAMPLERS);
  const inputs = sampler ? (workflow[sampler]?.inputs ?? {}) : {};
  const latent = (name: string) => follow(workflow, inputs.latent_image, name);
  const seedName = 'noise_seed' in inputs ? 'noise_seed' : 'seed';
  const loaders = Object.keys(workflow)
    .sort(byNumericId)
    .filter((id) => workflow[id]?.class_type === 'LoadImage')
    .map((id) => `${id}.image`);
  return {
    prompt: explicit.prompt ?? follow(workflow, inputs.positive, 'text'),
    negativePrompt: explicit.negativePrompt ?? follow(workflow, inputs.negative, 'text'),
    width: explicit.width ?? latent('width'),
    height: explicit.height ?? latent('height'),
    seed: explicit.seed ?? (sampler && seedName in inputs ? `${sampler}.${seedName}` : undefined),
    batchSize: explicit.batchSize ?? latent('batch_size'),
    images: explicit.images ?? loaders,
  };
}

/** The checkpoint files a workflow loads (`ckpt_name` / `unet_name` inputs), for the catalog check. */
export function checkpointsOf(workflow: Workflow): string[] {
  return Object.values(workflow).flatMap((node) =>
    typeof node.inputs.ckpt_name === 'string' ? [node.inputs.ckpt_name] : [],
  );
}

/**
 * A copy of the workflow with the request's values set; a string names what the workflow lacks.
 * Each task is one image: `batch_size` is set to 1 (a generation's `count` is that many prompts,
 * spread over the pool's servers).
 */
export function fillWorkflow(
  workflow: Workflow,
  settings: ComfyRouteSettings,
  values: WorkflowValues,
): Workflow | string {
  const filled = structuredClone(workflow);
  const map = mappingOf(workflow, settings.inputs);
  const set = (target: string | undefined, value: string | number): boolean => {
    if (!target) return false;
    const dot = target.indexOf('.');
    const node = filled[target.slice(0, dot)];
    if (dot < 1 || !node) return false;
    node.inputs[target.slice(dot + 1)] = value;
    return true;
  };
  const fix = 'map it in the catalog entry\'s "comfyui.inputs"';
  if (!set(map.prompt, values.prompt)) return `the workflow has no prompt input to set; ${fix}`;
  if (settings.negativePrompt !== undefined) set(map.negativePrompt, settings.negativePrompt);
  if (values.images.length === 0) {
    if (!set(map.width, values.width) || !set(map.height, values.height))
      return `the workflow has no width and height to set; ${fix}`;
  } else {
    set(map.width, values.width);
    set(map.height, values.height);
  }
  set(map.seed, values.seed);
  set(map.batchSize, 1);
  const slots = map.images ?? [];
  if (values.images.length > slots.length)
    return `the workflow takes ${slots.length} reference image(s), not ${values.images.length}; add LoadImage nodes or ${fix}`;
  for (const [i, name] of values.images.entries())
    if (!set(slots[i], name)) return `reference input ${slots[i]} is not a node input; ${fix}`;
  return filled;
}

/** Reads workflow files once each, relative to the catalog's folder. */
export function createWorkflowFiles(folder: string) {
  const loaded = new Map<string, Promise<Workflow | string>>();
  return {
    pathOf: (name: string) => (isAbsolute(name) ? name : resolve(folder, name)),
    load(name: string): Promise<Workflow | string> {
      const path = isAbsolute(name) ? name : resolve(folder, name);
      let found = loaded.get(path);
      if (!found) {
        found = readFile(path, 'utf8').then(
          (text) => {
            let json: unknown;
            try {
              json = JSON.parse(text);
            } catch {
              return `workflow ${name} is not valid JSON`;
            }
            const parsed = parseWorkflow(json);
            return typeof parsed === 'string' ? `workflow ${name}: ${parsed}` : parsed;
          },
          () => `workflow file ${name} cannot be read (looked at ${path})`,
        );
        loaded.set(path, found);
      }
      return found;
    },
  };
}

export type WorkflowFiles = ReturnType<typeof createWorkflowFiles>;
