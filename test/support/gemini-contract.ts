import type { contractChecker } from './openapi-contract.js';

/** The Gemini-native routes (/v1beta), success and errors in Google's shape. */
export async function exerciseGeminiRoutes(
  exercise: ReturnType<typeof contractChecker>['exercise'],
  h: { authorization: string },
) {
  const json = { ...h, 'content-type': 'application/json' };
  const wrongKey = { 'x-goog-api-key': 'atl_x' };
  await exercise('GET', '/v1beta/models', { url: '/v1beta/models', headers: h }, 200);
  await exercise('GET', '/v1beta/models', { url: '/v1beta/models', headers: wrongKey }, 401);
  const model = '/v1beta/models/{model}';
  await exercise('GET', model, { url: '/v1beta/models/gemini-3-pro-image', headers: h }, 200);
  await exercise('GET', model, { url: '/v1beta/models/no-such-model', headers: h }, 404);
  await exercise('GET', model, { url: '/v1beta/models/pro', headers: wrongKey }, 401);
  const body = {
    contents: [{ role: 'user', parts: [{ text: 'contract' }] }],
    generationConfig: { responseModalities: ['IMAGE'], imageConfig: { aspectRatio: '1:1', imageSize: '1K' } },
  };
  for (const method of ['generateContent', 'streamGenerateContent']) {
    const path = `/v1beta/models/{model}:${method}`;
    const url = `/v1beta/models/pro:${method}`;
    await exercise('POST', path, { url, headers: json, payload: body }, 200);
    await exercise('POST', path, { url, headers: json, payload: { contents: [] } }, 400);
    await exercise('POST', path, { url: url.replace('pro', 'no'), headers: json, payload: body }, 404);
    await exercise('POST', path, { url, headers: { ...json, ...wrongKey }, payload: body }, 401);
    const failing = { contents: [{ parts: [{ text: '[[fail]]' }] }] };
    await exercise('POST', path, { url, headers: json, payload: failing }, 502);
  }
  await exercise(
    'POST',
    '/v1beta/models/{model}:streamGenerateContent',
    { url: '/v1beta/models/pro:streamGenerateContent?alt=sse', headers: json, payload: body },
    200,
  );
}
