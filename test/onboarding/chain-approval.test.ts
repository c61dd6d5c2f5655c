/**
 * The onboarding service's approval goes to the chain first (decision 159;
 * src/onboarding/service-actors.ts, src/onboarding/approval.ts): with a chain approver,
 * the operator's approve sends ApproveValidator of the applicant and records the approval
 * (and issues the token) only once the chain took it; a refusal of the chain (or a node
 * not answering) is the approve's answer and the applicant stays pending; an applicant
 * not pending is refused before anything is sent. The transaction itself, against a
 * real node, is test/onboarding/register.test.ts's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/envelope';
import type { ChainApprover } from '../../src/onboarding/book';
import { startOnboardingActors, type OnboardingActors } from '../../src/onboarding/service-actors';
import type { NetworkBinding } from '../../src/onboarding/store';
import { silentLogger } from '../../src/util/log';

const BINDING: NetworkBinding = { network: 'devnet', chainId: 713799, genesisHash: `0x${'ab'.repeat(32)}` };
const addr = (i: number) => '0x' + i.toString(16).padStart(2, '0').repeat(20);
const form = (i: number) => ({ address: addr(i), name: `node-${i}`, endpoint: `node${i}.example.org:9000`, email: 'ops@example.org' });

let dir: string | undefined;
let actors: OnboardingActors | undefined;
afterEach(async () => {
  await actors?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
  actors = undefined;
  dir = undefined;
});

/** An approver that records what it was asked, and refuses while `refuse` is set. */
function approver(): ChainApprover & { sent: string[]; refuse: ApiError | undefined } {
  const a = {
    operator: addr(0xee),
    sent: [] as string[],
    refuse: undefined as ApiError | undefined,
    async approve(candidate: string) {
      a.sent.push(candidate);
      if (a.refuse) throw a.refuse;
      return { txHash: `0x${'00'.repeat(32)}`, height: 7 };
    },
  };
  return a;
}

async function start(chain: ChainApprover): Promise<OnboardingActors> {
  dir = mkdtempSync(join(tmpdir(), 'exchain-chain-approval-'));
  actors = await startOnboardingActors({ dataDir: dir, binding: BINDING, log: silentLogger(), nowMs: () => 1_700_000_000_000, approver: chain });
  return actors;
}

describe('the operator’s approval as a chain transaction', () => {
  it('is sent before the book records it; a chain refusal leaves the applicant pending, and a second approve goes through', async () => {
    const chain = approver();
    const { book } = await start(chain);
    await book.apply(form(1));
    chain.refuse = new ApiError(403, 'NOT_OPERATOR', 'operator: not the network operator');
    await expect(book.approve(addr(1))).rejects.toMatchObject({ status: 403, code: 'NOT_OPERATOR' });
    expect((await book.status(addr(1))).status).toBe('pending');
    chain.refuse = undefined;
    const approved = await book.approve(addr(1));
    expect(approved.token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect((await book.status(addr(1))).status).toBe('approved');
    expect(chain.sent).toEqual([addr(1), addr(1)]);
  });

  it('sends nothing for an applicant that is not pending, or never applied', async () => {
    const chain = approver();
    const { book } = await start(chain);
    await expect(book.approve(addr(2))).rejects.toMatchObject({ status: 404 });
    await book.apply(form(3));
    await book.reject(addr(3));
    await expect(book.approve(addr(3))).rejects.toMatchObject({ status: 409, code: 'APPLICANT_STATE' });
    expect(chain.sent).toEqual([]);
  });
});
