/**
 * GET /docs in a real browser (issue 23 item 3): the machine's Chromium (test/helpers/browser.ts)
 * driven by playwright-core opens the page on an in-process devnet node, finds every
 * route of /openapi.json listed, narrows the list with the filter, opens one route to
 * show its schemas and examples, and checks the page asked nothing of another origin.
 * Screenshots go to test-output/ (git-ignored); docs/images/docs-page.png is one of them,
 * committed.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Node } from '../../src/node/node';
import { launchChromium } from '../helpers/browser';
import { ROOT, startNode, tempDir } from '../helpers/devnet';

const OUT = join(ROOT, 'test-output');
const dir = tempDir('exchain-docs-page-');
let node: Node;
let url: string;
let browser: Browser;

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  ({ node, url } = await startNode(dir.path));
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await node.stop();
  dir.remove();
});

describe('/docs in chromium', () => {
  it('lists every route, filters them, shows a route\u2019s schemas and examples, and loads nothing from elsewhere', async () => {
    const doc = (await (await fetch(`${url}/openapi.json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const expected = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`)).sort();

    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const origin = new URL(url).origin;
    const requests: string[] = [];
    page.on('request', (r) => requests.push(r.url()));
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));

    await page.goto(`${url}/docs`);
    await page.waitForSelector('body[data-ready="1"]');
    const listed = (await page.$$eval('details.op', (els) => els.map((e) => e.getAttribute('data-route')!))).sort();
    expect(listed).toEqual(expected);
    await page.screenshot({ path: join(OUT, 'docs-page.png') });

    // The filter: every word must match; the others are hidden, and the tag counts follow.
    await page.fill('#filter', 'perp position');
    const visible = await page.$$eval('details.op:not(.hidden)', (els) => els.map((e) => e.getAttribute('data-route')));
    expect(visible).toContain('GET /v1/perp/positions/{address}');
    expect(visible.length).toBeLessThan(expected.length / 4);
    await page.fill('#filter', 'no such route at all');
    expect(await page.isVisible('#empty')).toBe(true);
    await page.fill('#filter', 'POST /v1/order');
    expect(await page.isVisible('#empty')).toBe(false);

    // One route opened: its body schema tree, responses and examples.
    const order = page.locator('details.op[data-route="POST /v1/order"]');
    await order.locator('summary').click();
    await expect.poll(() => order.locator('.tree').count()).toBeGreaterThan(1);
    const text = (await order.textContent()) ?? '';
    expect(text).toContain('Request body');
    expect(text).toContain('trader');
    expect(text).toContain('maxLength 20');
    expect(text).toContain('4XX');
    expect(await order.locator('pre.example').count()).toBeGreaterThan(1);
    await page.screenshot({ path: join(OUT, 'docs-page-route.png'), fullPage: true });

    expect(errors).toEqual([]);
    for (const r of requests) expect(new URL(r).origin, r).toBe(origin);
    await page.close();
  });
});
