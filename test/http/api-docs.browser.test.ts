import { existsSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/test-server.js';

const CHROMIUM = '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
if (!available) console.warn(`SKIPPED: the /docs browser test needs Debian's chromium at ${CHROMIUM} (apt-get install -y chromium; .ci/run does)`);

describe.skipIf(!available)('GET /docs in a real headless Chromium', () => {
  let s: TestServer;
  let browser: Browser;

  beforeAll(async () => {
    [s, browser] = await Promise.all([
      startTestServer(),
      chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] }),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  it('renders the reference from /openapi.json: the Sign operation expands to its request schema, within the page CSP', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(e.message));
    const outside: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(s.url) && !r.url().startsWith('data:')) outside.push(r.url());
    });

    page.setDefaultTimeout(15_000);
    await page.goto(`${s.url}/docs`);
    const sign = page.locator('#operations-Sign-sign');
    await sign.locator('.opblock-summary').first().click();
    const requestBody = sign.locator('.opblock-section-request-body');
    await requestBody.getByRole('tab', { name: 'Schema' }).click();
    // The JSON shapes Sign accepts, rendered from the SignRequest schema of /openapi.json.
    const schema = requestBody.locator('.model-box');
    await expect.poll(() => schema.innerText()).toMatch(/SignRequest[\s\S]*chain[\s\S]*contract[\s\S]*sender[\s\S]*uniq[\s\S]*signer[\s\S]*abi[\s\S]*args/);

    await requestBody.scrollIntoViewIfNeeded();
    const dir = await mkdtemp(path.join(tmpdir(), 'wallet-vault-docs-'));
    const file = path.join(dir, 'docs-sign.png');
    await page.screenshot({ path: file, fullPage: false });
    console.log(`screenshot of /docs: ${file}`);
    expect(existsSync(file)).toBe(true);
    expect(problems).toEqual([]);
    expect(outside).toEqual([]);
  });
});
