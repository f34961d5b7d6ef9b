import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { TestServer } from './harness.ts';

/**
 * The docs page as a person sees it, in Debian's headless Chromium. Without the browser the test
 * is skipped on a developer's machine (`apt-get install chromium` enables it) and fails in CI,
 * whose script installs it.
 */
const executablePath = process.env.STRATUM_TEST_CHROMIUM ?? '/usr/bin/chromium';
const available = fs.existsSync(executablePath);
if (!available && process.env.CI !== undefined) throw new Error(`${executablePath} is missing: CI installs Debian's chromium package`);

describe(
  'the API docs page in a browser',
  { skip: available ? false : `no browser at ${executablePath} (apt-get install chromium)` },
  () => {
    let server: TestServer | undefined;
    let browser: Browser | undefined;

    before(async () => {
      server = await TestServer.start('sqlite');
      browser = await chromium.launch({
        executablePath,
        headless: true,
        // This machine's closed network refuses Chromium's own background connections.
        args: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
    });
    after(async () => {
      await browser?.close();
      await server?.stop();
    });

    it('is titled and branded Stratum, groups the operations by resource, and shows how to get a token', async () => {
      assert.ok(browser !== undefined && server !== undefined);
      const url = server.url;
      const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
      const requests: string[] = [];
      page.on('request', (request) => requests.push(request.url()));
      await page.goto(`${url}/api/docs/`);
      await page.waitForSelector('.opblock-tag-section', { timeout: 20000 });
      assert.equal(await page.title(), 'Stratum API');
      assert.match((await page.textContent('.info .title')) ?? '', /^Stratum API/);
      const logo = await page.getAttribute('.topbar a img', 'src');
      assert.match(logo ?? '', /^data:image\/svg\+xml;base64,/);
      assert.match(Buffer.from((logo ?? '').split(',')[1] ?? '', 'base64').toString(), /Stratum/);

      const groups = await page.$$eval('.opblock-tag-section h3 .nostyle span', (spans) => spans.map((span) => span.textContent));
      for (const group of [
        'organization',
        'template',
        'collection',
        'item',
        'reference',
        'workspace',
        'variable',
        'vcs',
        'team',
        'team tokens',
        'personal tokens',
        'administration',
      ]) {
        assert.ok(groups.includes(group), `no group ${group} among ${groups.join(', ')}`);
      }
      const description = (await page.textContent('.info .description')) ?? '';
      assert.match(description, /npx stratum token --subject you@example\.com --groups STRATUM_ADMIN/);
      assert.match(description, /\/api\/openapi\.json/);
      assert.match((await page.getAttribute('.info .description a[href="/api/openapi.json"]', 'href')) ?? '', /openapi\.json/);

      // An operation opened shows its example request, as written for people.
      await page.click('#operations-organization-create_organization button.opblock-summary-control');
      await page.waitForSelector(
        '#operations-organization-create_organization .body-param__example, #operations-organization-create_organization .highlight-code',
      );
      const create = (await page.textContent('#operations-organization-create_organization')) ?? '';
      assert.match(create, /Create an organization/);
      assert.match(create, /"name": "acme"/);
      // "Try it out" on a team token starts from the documented request, which succeeds as it stands,
      // not from one made up from the schema.
      const teamToken = '[id$="-create_team_token"]';
      await page.click(`${teamToken} button.opblock-summary-control`);
      await page.click(`${teamToken} button.try-out__btn`);
      const draft = await page.inputValue(`${teamToken} textarea.body-param__text`);
      assert.deepEqual(JSON.parse(draft), { description: 'CI pipeline', group: 'platform-engineers', days: 30, hours: 0, minutes: 0 });
      await page.screenshot({ path: path.join(os.tmpdir(), 'stratum-docs-page.png'), fullPage: false });
      // Everything the page loaded came from the server itself: no CDN.
      for (const loaded of requests) assert.ok(loaded.startsWith(url) || loaded.startsWith('data:'), `the page loaded ${loaded}`);
      await page.close();
    });
  },
);
