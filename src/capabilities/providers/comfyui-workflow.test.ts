import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { checkpointsOf, fillWorkflow, mappingOf, parseWorkflow, type Workflow } from './comfyui-workflow.js';

const shipped = (name: string): Workflow => {
  const parsed = parseWorkflow(
    JSON.parse(readFileSync(new URL(`../../../catalogs/comfyui/${name}`, import.meta.url), 'utf8')),
  );
  assert.notEqual(typeof parsed, 'string', String(parsed));
  return parsed as Workflow;
};
const values = { prompt: 'a fox', width: 1152, height: 896, seed: 42, images: [] as string[] };

test('the shipped SDXL workflows: every field found from the sampler', () => {
  assert.deepEqual(mappingOf(shipped('sdxl-t2i.json')), {
    prompt: '6.text',
    negativePrompt: '7.text',
    width: '5.width',
    height: '5.height',
    seed: '3.seed',
    batchSize: '5.batch_size',
    images: [],
  });
  const edit = mappingOf(shipped('sdxl-i2i.json'));
  assert.deepEqual([edit.prompt, edit.width, edit.images], ['6.text', undefined, ['10.image']]);
  assert.deepEqual(checkpointsOf(shipped('sdxl-i2i.json')), ['sd_xl_base_1.0.safetensors']);
});

test('fillWorkflow sets the values on a copy; batch size is 1; the negative prompt is the entry’s', () => {
  const workflow = shipped('sdxl-t2i.json');
  const filled = fillWorkflow(workflow, { negativePrompt: 'blurry' }, values);
  assert.ok(typeof filled !== 'string', String(filled));
  assert.deepEqual(
    [filled['6']?.inputs.text, filled['7']?.inputs.text, filled['3']?.inputs.seed, filled['5']?.inputs],
    ['a fox', 'blurry', 42, { width: 1152, height: 896, batch_size: 1 }],
  );
  assert.equal(
    workflow['6']?.inputs.text,
    'a lighthouse on a cliff at dawn',
    'the loaded workflow is untouched',
  );
});

test('an explicit mapping wins; what the workflow cannot take is a sentence naming the fix', () => {
  const workflow = shipped('sdxl-i2i.json');
  const filled = fillWorkflow(
    workflow,
    { inputs: { prompt: '7.text' } },
    { ...values, images: ['atelier/x.png'] },
  );
  assert.ok(typeof filled !== 'string');
  assert.deepEqual([filled['7']?.inputs.text, filled['10']?.inputs.image], ['a fox', 'atelier/x.png']);
  assert.match(
    String(fillWorkflow(workflow, {}, { ...values, images: ['a.png', 'b.png'] })),
    /takes 1 reference image\(s\), not 2/,
  );
  assert.match(
    String(fillWorkflow(workflow, {}, values)),
    /no width and height to set; map it in the catalog/,
  );
  assert.match(String(parseWorkflow({ nodes: [], links: [] })), /UI workflow; export it with "Save \(API\)"/);
});
