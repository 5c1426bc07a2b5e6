import assert from 'node:assert/strict';
import { bearer, makePng, pollUntilFinal } from '../support/api-helpers.js';
import { exerciseCurationRoutes } from '../support/curation-contract.js';
import { exerciseOAuthWebsiteRoutes } from '../support/oauth-contract.js';
import { describeContract } from '../support/openapi-contract.js';
import { sessionCookieOf } from '../support/website-session.js';

const PASSWORD = 'correct horse battery';
const SESSION = '/web/api/session';
const KEY = '/web/api/account/upstream-keys/{provider}';

/**
 * The website's own API (/web/api) against the served document, signed in as the website is:
 * every operation's real answers, a success and an error each, match the documented schemas.
 * (test/api/openapi-contract.test.ts does the same for /api/v1 and the rest.)
 */
describeContract(
  'the OpenAPI document is the contract of the website API',
  '/web/api',
  async (t, exercise) => {
    const { email, apiKey } = await t.createAccount(undefined, { password: PASSWORD });
    // State-changing requests must come from the website's own origin (the public base URL).
    const origin = { origin: t.baseUrl };
    const signIn = (password: string, who = email) => ({
      url: SESSION,
      headers: origin,
      payload: { email: who, password },
    });

    const cookie = sessionCookieOf(await exercise('POST', SESSION, signIn(PASSWORD), 200));
    const web = { cookie, ...origin };
    await exercise('POST', SESSION, signIn('not the password'), 401);
    await exercise('POST', SESSION, { url: SESSION, headers: origin, payload: { email } }, 400);
    await exercise('POST', SESSION, { ...signIn(PASSWORD), headers: {} }, 403);
    // Three free failures, then the throttle answers 429.
    for (let i = 0; i < 3; i++) await exercise('POST', SESSION, signIn('x', 'nobody@example.test'), 401);
    await exercise('POST', SESSION, signIn('x', 'nobody@example.test'), 429);
    await exercise('GET', SESSION, { url: SESSION, headers: { cookie } }, 200);
    await exercise('GET', SESSION, { url: SESSION }, 200);

    const generate = '/web/api/generate';
    const prompt = { prompt: 'website contract', imageSize: '1K' };
    const generated = await exercise('POST', generate, { url: generate, headers: web, payload: prompt }, 200);
    await exercise('POST', generate, { url: generate, headers: web, payload: { count: 'x' } }, 400);
    await exercise('POST', generate, { url: generate, headers: { cookie }, payload: prompt }, 403);
    const pending = '/web/api/tasks/pending';
    await exercise('GET', pending, { url: `${pending}?since=0`, headers: { cookie } }, 200);
    await exercise('GET', pending, { url: `${pending}?since=soon`, headers: { cookie } }, 400);
    const cleared = '/web/api/tasks/cleared';
    await exercise('POST', cleared, { url: cleared, headers: web }, 200);
    await exercise('POST', cleared, { url: cleared, headers: { cookie } }, 403);
    const [taskId] = generated.json().task_ids as string[];
    await pollUntilFinal(t.app, apiKey, taskId ?? '');

    const works = await exercise(
      'GET',
      '/web/api/works',
      { url: '/web/api/works', headers: { cookie } },
      200,
    );
    await exercise('GET', '/web/api/works', { url: '/web/api/works?limit=0', headers: { cookie } }, 400);
    const search = '/web/api/works?q=contract&mode=text&model=base-image-2&from=0&to=99999999999999';
    await exercise('GET', '/web/api/works', { url: search, headers: { cookie } }, 200);
    await exercise('GET', '/web/api/works', { url: '/web/api/works?mode=paint', headers: { cookie } }, 400);
    await exercise('GET', '/web/api/assets', { url: '/web/api/assets', headers: { cookie } }, 200);
    await exercise('GET', '/web/api/assets', { url: '/web/api/assets?kind=x', headers: { cookie } }, 400);
    const estimates = '/web/api/tasks/estimates';
    await exercise('GET', estimates, { url: estimates, headers: { cookie } }, 200);
    await exercise('GET', estimates, { url: estimates }, 401);
    // A finished task's preview frames are gone (its 200 is shown by test/browser/website-previews).
    const preview = '/web/api/tasks/{id}/preview';
    const frameOf = (query: string) => `/web/api/tasks/${taskId}/preview?${query}`;
    await exercise('GET', preview, { url: frameOf('frame=0'), headers: { cookie } }, 404);
    await exercise('GET', preview, { url: frameOf('frame=9'), headers: { cookie } }, 400);
    await exercise('GET', preview, { url: frameOf('frame=0') }, 401);
    await exercise(
      'GET',
      '/web/api/prompts',
      { url: '/web/api/prompts?q=contract', headers: { cookie } },
      200,
    );
    await exercise('GET', '/web/api/prompts', { url: '/web/api/prompts?limit=x', headers: { cookie } }, 400);
    const presets = '/web/api/presets';
    const preset = '/web/api/presets/{name}';
    const settings = { model: 'base-image-2', aspect: '1:1', imageSize: '1K', count: 2, suffix: ', ink' };
    await exercise('PUT', preset, { url: `${presets}/Ink`, headers: web, payload: settings }, 200);
    await exercise('PUT', preset, { url: `${presets}/Ink`, headers: web, payload: { count: 0 } }, 400);
    await exercise('GET', presets, { url: presets, headers: { cookie } }, 200);
    await exercise('DELETE', preset, { url: `${presets}/Ink`, headers: web }, 204);
    await exercise('DELETE', preset, { url: `${presets}/Ink`, headers: web }, 404);
    const spend = '/web/api/account/spend-confirmation';
    const confirmAbove = { above_micros: 250_000, api_keys: true, sign_in: true };
    await exercise('PUT', spend, { url: spend, headers: web, payload: confirmAbove }, 200);
    await exercise('PUT', spend, { url: spend, headers: web, payload: { above_micros: -1 } }, 400);
    const smart = '/web/api/smart-collections';
    const oneSmart = '/web/api/smart-collections/{id}';
    const inky = { name: 'Inky', filters: { q: 'ink', mode: 'text', starred: true, from: '2026-01-01' } };
    const saved = await exercise('POST', smart, { url: smart, headers: web, payload: inky }, 201);
    await exercise('POST', smart, { url: smart, headers: web, payload: inky }, 409);
    await exercise('POST', smart, { url: smart, headers: web, payload: { name: 'x', filters: {} } }, 400);
    await exercise('GET', smart, { url: smart, headers: { cookie } }, 200);
    const savedUrl = `${smart}/${saved.json().id}`;
    await exercise('PATCH', oneSmart, { url: savedUrl, headers: web, payload: { name: 'Ink' } }, 200);
    await exercise(
      'PATCH',
      oneSmart,
      { url: `${smart}/scl_none`, headers: web, payload: { name: 'y' } },
      404,
    );
    await exercise('DELETE', oneSmart, { url: savedUrl, headers: web }, 204);
    await exercise('DELETE', oneSmart, { url: savedUrl, headers: web }, 404);
    const [work] = works.json().items as Array<{ id: string }>;
    assert.ok(work, 'the generation is a saved work');
    await exerciseCurationRoutes(exercise, { prefix: '/web/api', headers: web, workId: work.id });
    const oneWork = '/web/api/works/{id}';
    await exercise('GET', oneWork, { url: `/web/api/works/${work.id}`, headers: { cookie } }, 200);
    await exercise('GET', oneWork, { url: '/web/api/works/gen_none', headers: { cookie } }, 404);
    const versions = '/web/api/works/{id}/versions';
    await exercise('GET', versions, { url: `/web/api/works/${work.id}/versions`, headers: { cookie } }, 200);
    await exercise('GET', versions, { url: '/web/api/works/gen_none/versions', headers: { cookie } }, 404);
    const actions = '/web/api/works/{id}/actions';
    const actOn = (id: string, action: string) => ({
      url: `/web/api/works/${id}/actions`,
      headers: web,
      payload: { action },
    });
    await exercise('POST', actions, actOn(work.id, 'upscale'), 200);
    await exercise('POST', actions, actOn(work.id, 'nudge'), 400);
    await exercise('POST', actions, actOn('gen_none', 'upscale'), 404);
    const uploaded = await t.app.inject({
      method: 'POST',
      url: '/api/v1/upload',
      headers: { ...bearer(apiKey), 'content-type': 'image/png' },
      payload: await makePng(),
    });
    const library = (
      await t.app.inject({ method: 'GET', url: '/web/api/assets', headers: { cookie } })
    ).json().items as Array<{ id: string; kind: string; url: string }>;
    const upload = library.find((asset) => asset.url === uploaded.json().url)?.id ?? '';
    const result = library.find((asset) => asset.kind === 'result')?.id ?? '';
    const oneAsset = '/web/api/assets/{id}';
    await exercise('DELETE', oneAsset, { url: `/web/api/assets/${result}`, headers: web }, 409);
    await exercise('DELETE', oneAsset, { url: `/web/api/assets/${upload}`, headers: { cookie } }, 403);
    await exercise('DELETE', oneAsset, { url: `/web/api/assets/${upload}`, headers: web }, 204);
    await exercise('DELETE', oneAsset, { url: `/web/api/assets/${upload}`, headers: web }, 404);
    await exercise('DELETE', oneWork, { url: `/web/api/works/${work.id}`, headers: web }, 204);
    await exercise('DELETE', oneWork, { url: '/web/api/works/gen_none', headers: web }, 404);

    await exercise('GET', '/web/api/account', { url: '/web/api/account', headers: { cookie } }, 200);
    await exercise('GET', '/web/api/account', { url: '/web/api/account' }, 401);
    await exercise(
      'GET',
      '/web/api/account/usage',
      { url: '/web/api/account/usage', headers: { cookie } },
      200,
    );
    await exercise(
      'GET',
      '/web/api/account/usage',
      { url: '/web/api/account/usage?to=2026-02-29', headers: { cookie } },
      400,
    );
    const gemini = '/web/api/account/upstream-keys/gemini';
    await exercise('PUT', KEY, { url: gemini, headers: web, payload: { key: 'sk-contract' } }, 204);
    await exercise('PUT', KEY, { url: gemini, headers: web, payload: { key: ' ' } }, 400);
    await exercise('DELETE', KEY, { url: gemini, headers: web }, 204);
    await exercise('DELETE', KEY, { url: '/web/api/account/upstream-keys/local', headers: web }, 400);
    const rotate = '/web/api/account/api-key';
    const again = { password: PASSWORD };
    await exercise('POST', rotate, { url: rotate, headers: web, payload: again }, 200);
    await exercise('POST', rotate, { url: rotate, headers: web, payload: { password: 'wrong one' } }, 403);
    await exercise('POST', rotate, { url: rotate, headers: web }, 400);
    await exercise('POST', rotate, { url: rotate, headers: { cookie }, payload: again }, 403);
    const keys = '/web/api/account/keys';
    const oneKey = '/web/api/account/keys/{id}';
    const newKey = { name: 'board', scope: 'read', expires_at: Date.now() + 86_400_000, password: PASSWORD };
    const made = await exercise('POST', keys, { url: keys, headers: web, payload: newKey }, 201);
    await exercise('POST', keys, { url: keys, headers: web, payload: { ...newKey, scope: 'admin' } }, 400);
    await exercise('GET', keys, { url: keys, headers: { cookie } }, 200);
    await exercise('GET', keys, { url: keys }, 401);
    const keyUrl = `${keys}/${(made.json() as { key: { id: string } }).key.id}`;
    const retention = '/web/api/account/keys/{id}/retention';
    const keep = { url: `${keyUrl}/retention`, headers: web };
    await exercise('PUT', retention, { ...keep, payload: { results_days: 7, zero_retention: true } }, 200);
    await exercise('PUT', retention, { ...keep, payload: { zero_retention: 'yes' } }, 400);
    await exercise('DELETE', oneKey, { url: keyUrl, headers: web }, 204);
    await exercise('DELETE', oneKey, { url: keyUrl, headers: web }, 404);
    await exercise('PUT', retention, { ...keep, payload: {} }, 404);
    await exerciseOAuthWebsiteRoutes(t, exercise, web);
    const exported = '/web/api/account/export';
    await exercise('GET', exported, { url: exported, headers: { cookie } }, 200);
    await exercise('GET', exported, { url: exported }, 401);
    const erase = '/web/api/account/erase';
    const erasing = (confirm: string, password: string) => ({
      url: erase,
      headers: web,
      payload: { confirm, password },
    });
    await exercise('POST', erase, erasing('someone@else.test', PASSWORD), 400);
    await exercise('POST', erase, erasing(email, 'not the password'), 403);
    const leaving = await t.createAccount(undefined, { password: PASSWORD });
    const leavingCookie = sessionCookieOf(
      await exercise('POST', SESSION, signIn(PASSWORD, leaving.email), 200),
    );
    const goodbye = { cookie: leavingCookie, ...origin };
    await exercise(
      'POST',
      erase,
      { url: erase, headers: goodbye, payload: { confirm: leaving.email, password: PASSWORD } },
      200,
    );
    const password = '/web/api/account/password';
    const change = (new_password: string) => ({ current_password: PASSWORD, new_password });
    await exercise('POST', password, { url: password, headers: web, payload: change('short') }, 400);
    const changed = await exercise(
      'POST',
      password,
      { url: password, headers: web, payload: change('a new password') },
      204,
    );
    const renewed = { cookie: sessionCookieOf(changed), ...origin };
    const everywhere = '/web/api/sessions';
    await exercise('DELETE', everywhere, { url: everywhere, headers: { cookie: renewed.cookie } }, 403);
    await exercise('DELETE', everywhere, { url: everywhere, headers: renewed }, 204);
    await exercise('DELETE', everywhere, { url: everywhere, headers: renewed }, 401);

    await exercise('DELETE', SESSION, { url: SESSION, headers: { cookie } }, 403);
    await exercise('DELETE', SESSION, { url: SESSION, headers: web }, 204);
    await exercise('GET', SESSION, { url: SESSION, headers: { cookie } }, 200);
  },
);
