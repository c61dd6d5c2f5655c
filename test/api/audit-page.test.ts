/**
 * The /audit page in a real browser (issue 23 item 2, "Shown by"): the machine's
 * Chromium (test/helpers/browser.ts, never a downloaded browser) driven by playwright-core opens
 * /audit on an in-process devnet node, finds every machine of machines/index.ts drawn
 * (every state of its model in the SVG), watches a session appear and its state
 * highlighted after a signed SessionCreate, live over the WebSocket (no reload),
 * clicks an actor and a session to see their transitions with height and cause, and
 * filters by address. Screenshots go to test-output/audit/ (gitignored);
 * docs/images/audit-page.png is its session-revoked.png, committed.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MACHINE_ROLES } from '../../machines/index';
import { ExchangeClient } from '../../src/client';
import { launchChromium } from '../helpers/browser';
import { DEVNET_KEYS, ROOT, useDevnetNode } from '../helpers/devnet';

const OUT = join(ROOT, 'test-output', 'audit');
const env = useDevnetNode();
let browser: Browser;
let page: Page;
/** Errors the page threw, from its load on. */
const errors: string[] = [];
/** Playwright waits with no window of their own: what they wait for comes when it comes, bounded by the test's timeout. */
const NO_WINDOW = { timeout: 0 };
const alice = privateKeyToAccount(DEVNET_KEYS.accounts[3].privateKey);
const shot = (name: string, fullPage = false) => page.screenshot({ path: join(OUT, `${name}.png`), fullPage });

beforeAll(async () => {
  mkdirSync(OUT, { recursive: true });
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 1500, height: 1000 } });
  page.on('pageerror', (e) => errors.push(e.message));
  // Every test works on the page as loaded and subscribed to the audit topic.
  await page.goto(`${env.url}/audit`);
  await page.waitForSelector('#conn.on', NO_WINDOW);
}, 60_000);
afterAll(async () => {
  await browser?.close();
});

describe('/audit in chromium', () => {
  it('draws every machine, each state of its model in the drawing', async () => {
    for (const r of MACHINE_ROLES) {
      const svg = page.locator(`section.machine[data-machine="${r.id}"] svg[data-machine="${r.id}"]`);
      await expect(svg.count(), `${r.id} drawn`).resolves.toBe(1);
      const drawn = await svg.evaluate((s: any) => [...s.querySelectorAll('g.state')].map((g: any) => g.getAttribute('data-state')));
      const model = ((await (await fetch(`${env.url}/v1/audit/machines`)).json()) as any).data.machines.find((m: any) => m.name === r.id).model;
      const ids: string[] = [];
      const walk = (s: any) => {
        ids.push(s.id);
        s.states.forEach(walk);
      };
      walk(model.root);
      expect(new Set(drawn)).toEqual(new Set(ids));
      const box = await svg.boundingBox();
      expect(box!.width, `${r.id} has a visible drawing`).toBeGreaterThan(100);
    }
    // The machine list filters: one machine shown, the others hidden.
    await page.click('#machine-list button[data-machine="session"]');
    expect(await page.locator('section.machine:visible').count()).toBe(1);
    await page.click('#machine-list li:first-child button');
    expect(await page.locator('section.machine:visible').count()).toBe(MACHINE_ROLES.length);
    await shot('all-machines', true);
    for (const r of MACHINE_ROLES) await page.locator(`section.machine[data-machine="${r.id}"]`).screenshot({ path: join(OUT, `machine-${r.id}.png`) });
    expect(errors).toEqual([]);
  });

  it('clicks an actor: its state highlighted in the drawing, its lifecycle transitions listed', async () => {
    await page.click('#machine-list button[data-machine="actor-lifecycle"]');
    const row = page.locator('tr.instance[data-machine="actor-lifecycle"][data-id="chain"]');
    await row.click();
    await page.waitForSelector('section[data-machine="actor-lifecycle"] .transitions tr[data-seq]');
    const highlighted = await page.locator('section[data-machine="actor-lifecycle"] g.state.current').evaluateAll((gs: any[]) => gs.map((g: any) => g.getAttribute('data-state')));
    expect(highlighted).toEqual(['actor-lifecycle.running']);
    const rows = await page.locator('section[data-machine="actor-lifecycle"] .transitions tbody tr').allInnerTexts();
    expect(rows[0]).toMatch(/starting → running[\s\S]*STARTED/);
    expect(rows[1]).toMatch(/idle → starting[\s\S]*START/);
    // The transition just taken is drawn as such.
    expect(await page.locator('section[data-machine="actor-lifecycle"] g.edge.last').count()).toBeGreaterThan(0);
    await shot('actor-selected');
  });

  it('updates live after a signed SessionCreate: the session appears, highlighted, with its transaction as the cause', async () => {
    await page.click('#machine-list button[data-machine="session"]');
    const before = await page.locator('tr.instance[data-machine="session"]').count();
    const client = new ExchangeClient(env.url, { chainId: env.node.config.genesis.chainId });
    const sessionKey = privateKeyToAccount(generatePrivateKey());
    const created = await client.createSession(alice, { sessionKey: sessionKey.address, expiresAt: Math.floor(Date.now() / 1000) + 3_600 });
    const id = alice.address.toLowerCase();
    // No reload: the WebSocket push brings it.
    const row = page.locator(`tr.instance[data-machine="session"][data-id="${id}"]`);
    await row.waitFor(NO_WINDOW);
    expect(await page.locator('tr.instance[data-machine="session"]').count()).toBe(before + 1);
    expect(await row.getAttribute('data-state')).toBe('active');
    await expect(page.locator(`#feed li[data-machine="session"][data-id="${id}"]`).count()).resolves.toBe(1);
    await row.click();
    await page.waitForSelector('section[data-machine="session"] .transitions tr[data-seq]');
    const highlighted = await page.locator('section[data-machine="session"] g.state.current').evaluateAll((gs: any[]) => gs.map((g: any) => g.getAttribute('data-state')));
    expect(highlighted).toEqual(['session.active']);
    const height = ((await (await fetch(`${env.url}/tx/${created.tx_hash}`)).json()) as any).data.height;
    const text = await page.locator('section[data-machine="session"] .transitions tbody tr').first().innerText();
    expect(text).toContain(String(height));
    expect(text).toContain('SessionCreated (SessionCreate');
    expect(text).toContain(created.tx_hash.slice(0, 8));
    await shot('session-live');

    // Revoked, live: the highlight moves to revoked.
    await client.revokeSession(alice);
    await page.waitForSelector(`tr.instance[data-machine="session"][data-id="${id}"][data-state="revoked"]`, NO_WINDOW);
    await page.waitForFunction(() => (globalThis as any).document.querySelector('section[data-machine="session"] g.state.current')?.getAttribute('data-state') === 'session.revoked', undefined, NO_WINDOW);
    await page.locator('section[data-machine="session"] .transitions tbody tr', { hasText: 'active → revoked' }).waitFor(NO_WINDOW);
    expect(await page.locator('section[data-machine="session"] g.edge.last').count()).toBe(1);
    await shot('session-revoked');
  });

  it('highlights one state per region of a parallel machine (agent-mode)', async () => {
    await page.click('#machine-list button[data-machine="agent-mode"]');
    const client = new ExchangeClient(env.url, { chainId: env.node.config.genesis.chainId });
    await client.setAgentMode(alice, 1);
    const id = alice.address.toLowerCase();
    const row = page.locator(`tr.instance[data-machine="agent-mode"][data-id="${id}"]`);
    await row.waitFor(NO_WINDOW);
    expect(await row.getAttribute('data-state')).toBe('mode.reduceOnly caps.notSet');
    await row.click();
    await page.waitForSelector('section[data-machine="agent-mode"] .transitions tr[data-seq]');
    const highlighted = await page.locator('section[data-machine="agent-mode"] g.state.current').evaluateAll((gs: any[]) => gs.map((g) => g.getAttribute('data-state')));
    expect(highlighted.sort()).toEqual(['agent.caps', 'agent.caps.notSet', 'agent.mode', 'agent.mode.reduceOnly']);
    await shot('agent-mode');
  });

  it('filters by address: only what belongs to it', async () => {
    // An account of its own: a session created and revoked, an agent mode set, each seen live on the page.
    const bob = privateKeyToAccount(DEVNET_KEYS.accounts[4].privateKey);
    const client = new ExchangeClient(env.url, { chainId: env.node.config.genesis.chainId });
    const id = bob.address.toLowerCase();
    await client.createSession(bob, { sessionKey: privateKeyToAccount(generatePrivateKey()).address, expiresAt: Math.floor(Date.now() / 1000) + 3_600 });
    await client.revokeSession(bob);
    await client.setAgentMode(bob, 1);
    await page.locator(`#feed li[data-machine="agent-mode"][data-id="${id}"]`).waitFor({ state: 'attached', ...NO_WINDOW });
    await page.click('#machine-list li:first-child button');
    await page.fill('#address', bob.address);
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('tr.instance[data-machine="actor-lifecycle"]').length === 0, undefined, NO_WINDOW);
    expect(await page.locator('tr.instance[data-machine="session"]').count()).toBe(1);
    const feed = page.locator('#feed li:visible');
    expect(await feed.count()).toBe(3); // its session's creation and revocation, its agent mode
    await page.fill('#address', '');
    expect(await feed.count()).toBeGreaterThan(2); // the actors' steps again
    await page.locator('tr.instance[data-machine="actor-lifecycle"]').first().waitFor(NO_WINDOW);
    await page.click('#machine-list button[data-machine="session"]');
    await shot('after-filter');
  });
});
