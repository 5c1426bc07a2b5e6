import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiError, GoogleGenAI } from '@google/genai';
import sharp from 'sharp';
import { pixelSize } from '../../src/base/domain/image-sizes.js';
import { bearer, makePng } from '../support/api-helpers.js';
import { createTestApp, type TestApp } from '../support/test-server.js';

/**
 * The Gemini-native route (issue 29) driven by Google's own client, `@google/genai`, pointed at
 * Atelier (httpOptions.baseUrl), and by the request shapes of the apps that call it raw.
 */

const sizeOf = async (base64: string | undefined) => {
  const meta = await sharp(Buffer.from(base64 ?? '', 'base64')).metadata();
  return `${meta.width}x${meta.height}`;
};
const pixels = (aspect: string, size: '1K' | '2K') => {
  const { width, height } = pixelSize(aspect, size);
  return `${width}x${height}`;
};

interface GoogleError {
  error: { code: number; message: string; status: string; details: Array<Record<string, unknown>> };
}

/** The Google error the SDK threw: its HTTP status and the body it parsed into the message. */
async function sdkError(call: Promise<unknown>): Promise<{ status: number; body: GoogleError }> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof ApiError, `an ApiError, got ${String(error)}`);
    return { status: error.status, body: JSON.parse(error.message) as GoogleError };
  }
  assert.fail('the call succeeded');
}

describe('Gemini-native route (/v1beta), with @google/genai', () => {
  let t: TestApp;
  let apiKey: string;
  /** The client as apps build it: @google/genai 3 calls {baseUrl}/v1/… by default. */
  let ai: GoogleGenAI;
  /** Told apiVersion v1beta (Google's documented path; its models.list needs it here). */
  let aiBeta: GoogleGenAI;
  const post = (
    path: string,
    body: unknown,
    headers: Record<string, string> = { 'x-goog-api-key': apiKey },
  ) =>
    fetch(`${t.baseUrl}/v1beta/${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });

  before(async () => {
    t = await createTestApp({ listen: true });
    ({ apiKey } = await t.createAccount());
    ai = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: t.baseUrl } });
    aiBeta = new GoogleGenAI({ apiKey, httpOptions: { baseUrl: t.baseUrl, apiVersion: 'v1beta' } });
  });
  after(() => t?.close());

  test('generateContent with imageConfig and responseModalities answers inlineData at that aspect and size', async () => {
    const response = await ai.models.generateContent({
      model: 'gemini-3-pro-image-preview',
      contents: 'a lighthouse at dawn',
      config: { imageConfig: { aspectRatio: '16:9', imageSize: '1K' }, responseModalities: ['IMAGE'] },
    });
    const parts = response.candidates?.[0]?.content?.parts ?? [];
    assert.equal(parts.length, 1);
    assert.equal(parts[0]?.inlineData?.mimeType, 'image/png');
    assert.equal(await sizeOf(parts[0]?.inlineData?.data), pixels('16:9', '1K'));
    assert.equal(response.candidates?.[0]?.finishReason, 'STOP');
    assert.equal(response.modelVersion, 'pro', 'the alias answered as its catalog model');
    assert.deepEqual(response.usageMetadata, {}, 'the local renderer reports no token counts');
    assert.equal(response.data, parts[0]?.inlineData?.data, "the SDK's own image accessor reads it");

    const history = (await (
      await fetch(`${t.baseUrl}/api/v1/history?limit=5`, { headers: bearer(apiKey) })
    ).json()) as { items: Array<{ prompt: string; model: string; aspect: string; imageSize: string }> };
    const item = history.items[0];
    assert.deepEqual(
      { prompt: item?.prompt, model: item?.model, aspect: item?.aspect, imageSize: item?.imageSize },
      { prompt: 'a lighthouse at dawn', model: 'pro', aspect: '16:9', imageSize: '1K' },
      'the task shows up in /api/v1/history',
    );
  });

  test('no imageConfig: 1:1 at 1K (Gemini’s defaults); candidateCount 2 answers two candidates', async () => {
    const response = await ai.models.generateContent({
      model: 'pro',
      contents: [{ role: 'user', parts: [{ text: 'two foxes' }] }],
      config: { candidateCount: 2, responseModalities: ['TEXT', 'IMAGE'] },
    });
    assert.equal(response.candidates?.length, 2);
    assert.deepEqual(
      response.candidates?.map((candidate) => candidate.index),
      [0, 1],
    );
    for (const candidate of response.candidates ?? []) {
      assert.equal(await sizeOf(candidate.content?.parts?.[0]?.inlineData?.data), pixels('1:1', '1K'));
    }
  });

  test('an edit with an inline image (over the 1 MB JSON limit of other routes) keeps its shape; the reference joins the library', async () => {
    // Noise does not compress: about 1.2 MB of PNG, 1.6 MB of base64.
    const noise = Buffer.from(Array.from({ length: 640 * 480 * 4 }, () => Math.floor(Math.random() * 256)));
    const png = await sharp(noise, { raw: { width: 640, height: 480, channels: 4 } })
      .png()
      .toBuffer();
    assert.ok(png.toString('base64').length > 1024 * 1024);
    const response = await ai.models.generateContent({
      model: 'gemini-2.5-flash-image',
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'make it blue' },
            { inlineData: { mimeType: 'image/png', data: png.toString('base64') } },
          ],
        },
      ],
      config: { responseModalities: ['IMAGE'] },
    });
    assert.equal(
      await sizeOf(response.candidates?.[0]?.content?.parts?.[0]?.inlineData?.data),
      pixels('4:3', '1K'),
    );
    const history = (await (
      await fetch(`${t.baseUrl}/api/v1/history?limit=1`, { headers: bearer(apiKey) })
    ).json()) as { items: Array<{ mode: string; refs: string[] }> };
    assert.equal(history.items[0]?.mode, 'edit');
    assert.match(history.items[0]?.refs[0] ?? '', new RegExp(`^${t.baseUrl}/files/uploads/`));
  });

  test('streamGenerateContent (alt=sse) yields the answer as one chunk', async () => {
    const chunks = [];
    for await (const chunk of await aiBeta.models.generateContentStream({
      model: 'flash',
      contents: 'a kite',
      config: { imageConfig: { aspectRatio: '3:2' } },
    })) {
      chunks.push(chunk);
    }
    assert.equal(chunks.length, 1);
    assert.equal(await sizeOf(chunks[0]?.data), pixels('3:2', '1K'));
  });

  test('models.list and models.get read the catalog and its aliases', async () => {
    const names = [];
    for await (const model of await aiBeta.models.list()) names.push(model.name);
    assert.ok(names.includes('models/base-image-2'));
    assert.ok(names.includes('models/gemini-3-pro-image'));
    const model = await aiBeta.models.get({ model: 'gemini-3.1-flash-image' });
    assert.equal(model.name, 'models/gemini-3.1-flash-image');
    assert.deepEqual(model.supportedActions, ['generateContent', 'streamGenerateContent']);
    const missing = await sdkError(aiBeta.models.get({ model: 'imagen-9' }));
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.status, 'NOT_FOUND');
  });

  test('models.list: a pageToken (Atelier issues none) is 400 INVALID_ARGUMENT, not the first page again', async () => {
    const forged = await sdkError(aiBeta.models.list({ config: { pageToken: 'eyJvZmZzZXQiOjUwfQ' } }));
    assert.equal(forged.status, 400);
    assert.equal(forged.body.error.status, 'INVALID_ARGUMENT');
    assert.match(forged.body.error.message, /pageToken/);
    assert.ok(!forged.body.error.message.includes('eyJvZmZzZXQiOjUwfQ'), 'the token is not echoed');
  });

  test('an unknown model is a 404 NOT_FOUND in Google’s shape', async () => {
    const { status, body } = await sdkError(ai.models.generateContent({ model: 'imagen-9', contents: 'x' }));
    assert.equal(status, 404);
    assert.deepEqual(Object.keys(body), ['error']);
    assert.deepEqual(Object.keys(body.error).sort(), ['code', 'details', 'message', 'status']);
    assert.equal(body.error.code, 404);
    assert.equal(body.error.status, 'NOT_FOUND');
    assert.match(body.error.message, /models\/imagen-9 is not found/);
    // Open WebUI's default endpoint method (Imagen's :predict) is not served: Google's 404 too.
    const predict = await post('models/pro:predict', { instances: { prompt: 'x' } });
    assert.equal(predict.status, 404);
    assert.equal(((await predict.json()) as GoogleError).error.status, 'NOT_FOUND');
  });

  test('x-goog-api-key and Bearer both authenticate; two different keys, none or a wrong one are 401 UNAUTHENTICATED', async () => {
    const body = { contents: [{ parts: [{ text: 'a cat' }] }] };
    assert.equal((await post('models/flash:generateContent', body, bearer(apiKey))).status, 200);
    assert.equal(
      (await post('models/flash:generateContent', body, { 'x-goog-api-key': apiKey, ...bearer(apiKey) }))
        .status,
      200,
    );
    const { apiKey: other } = await t.createAccount();
    for (const headers of [
      { 'x-goog-api-key': apiKey, ...bearer(other) },
      {},
      { 'x-goog-api-key': 'atl_wrong' },
    ] as Array<Record<string, string>>) {
      const response = await post('models/flash:generateContent', body, headers);
      const error = ((await response.json()) as GoogleError).error;
      assert.equal(response.status, 401);
      assert.equal(error.status, 'UNAUTHENTICATED');
      assert.equal(error.code, 401);
    }
    const list = await fetch(`${t.baseUrl}/v1beta/models`);
    const unauthenticated = ((await list.json()) as GoogleError).error;
    assert.equal(unauthenticated.status, 'UNAUTHENTICATED');
    assert.match(unauthenticated.message, /send "x-goog-api-key: <API_KEY>"/);
  });

  test('bad bodies are 400 INVALID_ARGUMENT naming the field; responseModalities without IMAGE is refused', async () => {
    const cases: Array<[unknown, RegExp, string | undefined]> = [
      [{}, /contents/, 'contents'],
      [
        { contents: [{ parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }] },
        /text part/,
        'contents',
      ],
      [
        { contents: [{ parts: [{ text: 'x' }] }], generationConfig: { responseModalities: ['TEXT'] } },
        /must include IMAGE: Atelier answers images/,
        'generationConfig.responseModalities',
      ],
      [
        { contents: [{ parts: [{ text: 'x' }] }], generationConfig: { imageConfig: { imageSize: '3K' } } },
        /imageSize/,
        'generationConfig.imageConfig.imageSize',
      ],
      [
        { contents: [{ parts: [{ text: 'x' }] }], generationConfig: { imageConfig: { aspectRatio: '7:1' } } },
        /aspect/,
        'generationConfig.imageConfig.aspectRatio',
      ],
    ];
    for (const [body, message, field] of cases) {
      const response = await post('models/pro:generateContent', body);
      const { error } = (await response.json()) as GoogleError;
      assert.equal(response.status, 400, JSON.stringify(error));
      assert.equal(error.status, 'INVALID_ARGUMENT');
      assert.match(error.message, message);
      const violation = error.details.find(
        (detail) => detail['@type'] === 'type.googleapis.com/google.rpc.BadRequest',
      );
      const fields = (violation?.fieldViolations as Array<{ field: string }> | undefined)?.map(
        (v) => v.field,
      );
      assert.deepEqual(fields, field === undefined ? undefined : [field], JSON.stringify(error));
    }
    const noJson = await fetch(`${t.baseUrl}/v1beta/models/pro:generateContent`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-goog-api-key': apiKey },
      body: '{',
    });
    assert.equal(((await noJson.json()) as GoogleError).error.status, 'INVALID_ARGUMENT');
  });

  test('Idempotency-Key: a repeat replays the first answer and submits nothing', async () => {
    const headers = { 'x-goog-api-key': apiKey, 'idempotency-key': `gemini-${Date.now()}` };
    const body = { contents: [{ parts: [{ text: 'once' }] }] };
    const first = (await (await post('models/flash:generateContent', body, headers)).json()) as {
      responseId: string;
    };
    const again = await post('models/flash:generateContent', body, headers);
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
    assert.equal(((await again.json()) as { responseId: string }).responseId, first.responseId);
  });

  // LibreChat's Gemini image tool (api/app/clients/tools/structured/GeminiImageGen.js): `new
  // GoogleGenAI({ apiKey })` (the base URL from the SDK's GOOGLE_GEMINI_BASE_URL environment
  // variable, so the SDK's default /v1 path), contents as a list of parts ({ text } then
  // { inlineData } per referenced image), model GEMINI_IMAGE_MODEL (default gemini-2.5-flash-image),
  // config { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio } }; it reads
  // candidates[0].finishReason (SAFETY, PROHIBITED_CONTENT, RECITATION block), the first part with
  // inlineData, and usageMetadata's promptTokenCount / candidatesTokenCount (0 when absent).
  test("LibreChat's Gemini image tool: its client set-up and request shape", async () => {
    process.env.GOOGLE_GEMINI_BASE_URL = t.baseUrl;
    let client: GoogleGenAI;
    try {
      client = new GoogleGenAI({ apiKey });
    } finally {
      delete process.env.GOOGLE_GEMINI_BASE_URL;
    }
    const png = await makePng(300, 200);
    const response = await client.models.generateContent({
      model: 'gemini-2.5-flash-image',
      contents: [
        { text: 'a cat in a hat' },
        { inlineData: { mimeType: 'image/png', data: png.toString('base64') } },
      ],
      config: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '3:2' } },
    });
    const candidate = response.candidates?.[0];
    assert.ok(!['SAFETY', 'PROHIBITED_CONTENT', 'RECITATION'].includes(String(candidate?.finishReason)));
    const data = candidate?.content?.parts?.find((part) => part.inlineData)?.inlineData?.data;
    assert.equal(await sizeOf(data), pixels('3:2', '1K'));
    assert.equal(response.usageMetadata?.promptTokenCount ?? 0, 0);
  });

  // Open WebUI's Gemini engine (backend/open_webui/routers/images.py, IMAGES_GEMINI_ENDPOINT_METHOD
  // "generateContent"): POST {base}/models/{model}:generateContent with x-goog-api-key, body
  // {"contents": [{"parts": [{"text": prompt}]}]}; its edit appends {"inline_data": {"mime_type":
  // "image/png", "data": <base64>}} parts (snake_case); it reads candidates[].content.parts[]
  // .inlineData.data of every candidate.
  test("Open WebUI's request shapes (generate, and an edit with snake_case inline_data)", async () => {
    const generated = await post('models/gemini-3.1-flash-image-preview:generateContent', {
      contents: [{ parts: [{ text: 'a red bicycle' }] }],
    });
    assert.equal(generated.status, 200);
    const answer = (await generated.json()) as {
      candidates: Array<{ content: { parts: Array<{ inlineData?: { data: string } }> } }>;
    };
    const images = answer.candidates.flatMap((c) => c.content.parts.filter((p) => p.inlineData?.data));
    assert.equal(images.length, 1);
    const png = await makePng(480, 640);
    const edited = await post('models/gemini-3.1-flash-image-preview:generateContent', {
      contents: [
        {
          parts: [
            { text: 'paint it' },
            { inline_data: { mime_type: 'image/png', data: png.toString('base64') } },
          ],
        },
      ],
    });
    assert.equal(edited.status, 200);
    const edit = (await edited.json()) as typeof answer;
    assert.equal(await sizeOf(edit.candidates[0]?.content.parts[0]?.inlineData?.data), pixels('3:4', '1K'));
  });
});
