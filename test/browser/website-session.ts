import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestServer } from '../support/test-server.js';
import { ensureWebsiteBuilt, launchChromium, until } from './support.js';

type TestServer = Awaited<ReturnType<typeof startTestServer>>;

/** One browser on one service, shared by the tests of a describe block (they run in order). */
export interface WebsiteSession {
  server: TestServer;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The key `api` sends (a test that rotates it sets the new one here). */
  apiKey: string;
  /** Console errors and page exceptions, less the 4xx answers the tests provoke on purpose. */
  readonly consoleErrors: string[];
  /** Every path (with its query) the page requested. */
  readonly requested: string[];
  api(path: string, init?: RequestInit, key?: string): Promise<Response>;
  card(text: string): ReturnType<Page['locator']>;
  imageLoaded(alt: string): Promise<boolean>;
  goTo(label: string, path: string): Promise<void>;
  /** Fills and sends the sign-in form the page shows. */
  signIn(): Promise<void>;
}

/**
 * The setup of the website's end-to-end files: the real service on a free port (with `env()`, read
 * when it starts), the built website, Debian's Chromium, one page at 1280×900. Registers the before
 * and after hooks of the calling describe block; hooks registered before this call run first.
 */
export function websiteSession(env: () => Record<string, string> = () => ({})): WebsiteSession {
  const session = {
    apiKey: '',
    consoleErrors: [] as string[],
    requested: [] as string[],
    api: (path: string, init: RequestInit = {}, key = session.apiKey) =>
      fetch(`${session.server.baseUrl}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
      }),
    card: (text: string) => session.page.locator('article.task-card', { hasText: text }),
    imageLoaded: (alt: string) =>
      until(`image "${alt}" to load`, () =>
        session.page.evaluate(
          (value) =>
            [...document.querySelectorAll('img')].some(
              (img) => img.alt === value && img.complete && img.naturalWidth > 0,
            ),
          alt,
        ),
      ),
    goTo: async (label: string, path: string) => {
      await session.page
        .getByRole('navigation', { name: 'Main' })
        .getByRole('link', { name: label, exact: true })
        .click();
      await until(`URL ${path}`, () => new URL(session.page.url()).pathname === path);
    },
    signIn: async () => {
      await session.page.getByLabel('Email').fill(session.server.email);
      await session.page.getByLabel('Password').fill(session.server.password);
      await session.page.getByRole('button', { name: 'Sign in' }).click();
    },
  } as WebsiteSession;

  before(async () => {
    ensureWebsiteBuilt();
    session.server = await startTestServer({ env: env() });
    session.apiKey = session.server.apiKey;
    session.browser = await launchChromium();
    session.context = await session.browser.newContext({
      baseURL: session.server.baseUrl,
      viewport: { width: 1280, height: 900 },
    });
    const page = await session.context.newPage();
    session.page = page;
    page.setDefaultTimeout(15_000);
    page.on('console', (message) => {
      // 4xx answers the tests provoke on purpose show up as "Failed to load resource"; anything else
      // (a CSP violation, an exception) is a defect.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        session.consoleErrors.push(message.text());
      }
    });
    page.on('pageerror', (error) => session.consoleErrors.push(error.message));
    page.on('request', (request) =>
      session.requested.push(new URL(request.url()).pathname + new URL(request.url()).search),
    );
  });

  after(async () => {
    await session.browser?.close();
    await session.server?.close();
  });

  return session;
}

/** The last test of a session's describe block: nothing went to the console along the way. */
export function testNoConsoleErrors(session: WebsiteSession): void {
  test('no console errors (CSP violations, exceptions) along the way', () => {
    assert.deepEqual(session.consoleErrors, []);
  });
}
