/**
 * POST /api/validators/register on the onboarding service (contract [C-onboard-register];
 * decision 79), against real
 * in-process nodes of the two-validator devnet whose genesis funds the candidate: the
 * two validators (the first is the network's node the service submits to) and the candidate's own node, a
 * follower listening at the candidate's endpoint. Refused with the envelope and nothing
 * submitted: each field's bad shape, a wrong text or signer, a candidate not approved,
 * an endpoint where no synced node listens. Then a registration that passes every check
 * is submitted and final, and the candidate is a registered validator. Approval steps the
 * book's records through applicants.ts and the machine (the operator's route is not this
 * file's).
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stepOnboarding } from '../../machines/onboarding';
import { registrationDigest, type RegisterValidatorBody } from '../../src/codec/txs/validators';
import { signCompact64 } from '../../src/crypto/secp256k1';
import { genesisHash } from '../../src/genesis/load';
import type { Genesis } from '../../src/genesis/types';
import { generateNodeKeys, type NodeKeys } from '../../src/node/keyfile';
import type { Node } from '../../src/node/node';
import { applyApplication, statusView, type ApplicantRecord } from '../../src/onboarding/applicants';
import type { OnboardingBook } from '../../src/onboarding/book';
import { listensAt } from '../../src/onboarding/register';
import { httpChainApprover } from '../../src/onboarding/approval';
import { devnetOperatorKey } from '../../src/onboarding/operator-key';
import { registerRequest } from '../../src/cli/validator-ops';
import { buildOnboardingApp } from '../../src/onboarding/service';
import { genesisParams } from '../../src/state/genesis';
import { bytesToHex, hexToBytes } from '../../src/util/bytes';
import { createLogger } from '../../src/util/log';
import { DEVNET_KEYS, devnetGenesis, devnetVrfKey, startNode, tempDir, waitFor } from '../helpers/devnet';

const TOKEN = 10n ** 18n;
const BOND = 1_000_000n * TOKEN;

/** A book of records stepped through the machine: apply, then approve (what the operator's route will do). */
class TestBook implements OnboardingBook {
  readonly records = new Map<string, ApplicantRecord>();
  async apply(a: { address: string; name: string; endpoint: string; email: string }) {
    const r = applyApplication(this.records.get(a.address), a, 1_000);
    this.records.set(a.address, r);
    return r;
  }
  approve(address: string) {
    const r = this.records.get(address)!;
    const step = stepOnboarding(r.status, r.context, { type: 'APPROVE', ts: 2_000 })!;
    this.records.set(address, { ...r, status: step.value as ApplicantRecord['status'], context: step.context });
  }
  async status(address: string) {
    return statusView(address, this.records.get(address));
  }
}

describe('POST /api/validators/register', () => {
  const dirs: { remove(): void }[] = [];
  const nodes: Node[] = [];
  let genesis: Genesis;
  let candidate: NodeKeys;
  let other: NodeKeys;
  let endpoint: string;
  let validatorUrl: string;
  const book = new TestBook();
  let app: FastifyInstance;

  beforeAll(async () => {
    const base = devnetGenesis(2).genesis;
    const binding = { network: base.network, chainId: base.chainId, genesisHash: '0x' as const };
    candidate = await generateNodeKeys(binding);
    other = await generateNodeKeys(binding);
    genesis = { ...base, accounts: [...base.accounts, { address: candidate.address, usdc: 0n, nativeWei: 2n * BOND }] };
    const hash = genesisHash(genesis);
    const vDir = tempDir();
    dirs.push(vDir);
    const v = await startNode(vDir.path, { genesis, genesisHash: hash, p2p: { listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [] } });
    nodes.push(v.node);
    validatorUrl = v.url;
    const vInfo = v.node.p2pInfo()!;
    const vAddr = vInfo.listen[0].endsWith(`/p2p/${vInfo.peerId}`) ? vInfo.listen[0] : `${vInfo.listen[0]}/p2p/${vInfo.peerId}`;
    // The second validator of the two-validator devnet: blocks need both.
    const v1Dir = tempDir();
    dirs.push(v1Dir);
    const v1 = await startNode(v1Dir.path, {
      genesis,
      genesisHash: hash,
      validatorKey: hexToBytes(DEVNET_KEYS.validators[1].ecdsaPrivateKey),
      vrfKey: devnetVrfKey(1),
      p2p: { listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [vAddr] },
    });
    nodes.push(v1.node);
    const fDir = tempDir();
    dirs.push(fDir);
    const f = await startNode(fDir.path, { genesis, genesisHash: hash, validatorKey: undefined, p2p: { listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [vAddr], peerKey: hexToBytes(candidate.peerPrivateKey) } });
    nodes.push(f.node);
    const port = /\/tcp\/([0-9]+)/.exec(f.node.p2pInfo()!.listen[0])![1];
    endpoint = `127.0.0.1:${port}`;
    app = await buildOnboardingApp(book, createLogger({ destination: 'silent' }), { chainId: genesis.chainId }, undefined, { chainId: genesis.chainId, params: genesisParams(genesis), blockTimeMs: genesis.consensus.blockTimeMs, nodeUrl: validatorUrl });
    await book.apply({ address: candidate.address, name: 'cand', endpoint, email: 'c@example.org' });
    await book.apply({ address: other.address, name: 'other', endpoint: '127.0.0.1:1', email: 'o@example.org' });
  }, 60_000);

  afterAll(async () => {
    await app?.close();
    for (const n of nodes.reverse()) await n.stop();
    for (const d of dirs) d.remove();
  });

  function request(keys: NodeKeys, over: Partial<Record<string, string>> = {}, signed: Partial<Omit<RegisterValidatorBody, 'signature'>> = {}, signer = keys) {
    const body: Omit<RegisterValidatorBody, 'signature'> = {
      candidate: keys.address,
      vrfPubkey: keys.vrfPubkey,
      ecdsaPubkey: keys.ecdsaPubkey,
      name: 'cand',
      endpoint,
      bond: BOND,
      nonce: 42n,
      ...signed,
    };
    const sig = signCompact64(registrationDigest(genesis.chainId, body), hexToBytes(signer.ecdsaPrivateKey));
    return {
      op: 'RegisterValidator',
      candidate: body.candidate,
      vrf_pubkey: body.vrfPubkey,
      ecdsa_pubkey: body.ecdsaPubkey,
      name: body.name,
      endpoint: body.endpoint,
      bond: String(body.bond),
      nonce: String(body.nonce),
      signature: bytesToHex(sig).slice(2),
      ...over,
    };
  }

  async function post(payload: unknown) {
    const res = await app.inject({ method: 'POST', url: '/api/validators/register', payload: payload as object });
    return { status: res.statusCode, body: res.json() as { success: boolean; data?: any; error?: { code: string; message: string } } };
  }

  it('refuses each field of a bad shape with 400, naming it', async () => {
    const cases: [Record<string, string>, number, string, string][] = [
      [{ op: 'Register' }, 400, 'INVALID_REQUEST', 'op'],
      [{ candidate: '0x1234' }, 400, 'INVALID_VALIDATOR', 'candidate:'],
      [{ vrf_pubkey: '0x12' }, 400, 'INVALID_VALIDATOR', 'vrf_pubkey:'],
      [{ vrf_pubkey: `0x${'00'.repeat(32)}` }, 400, 'INVALID_VALIDATOR', 'vrf_pubkey:'],
      [{ ecdsa_pubkey: `0x04${candidate.ecdsaPubkey.slice(4)}` }, 400, 'INVALID_VALIDATOR', 'ecdsa_pubkey:'],
      [{ ecdsa_pubkey: candidate.ecdsaPubkey.slice(0, 60) }, 400, 'INVALID_VALIDATOR', 'ecdsa_pubkey:'],
      [{ ecdsa_pubkey: other.ecdsaPubkey }, 400, 'INVALID_VALIDATOR', 'ecdsa_pubkey: derives to'],
      [{ name: 'two words' }, 400, 'INVALID_VALIDATOR', 'name:'],
      [{ endpoint: 'host-without-port' }, 400, 'INVALID_VALIDATOR', 'endpoint:'],
      [{ bond: '1e24' }, 400, 'INVALID_AMOUNT', 'bond:'],
      [{ bond: String(BOND - TOKEN) }, 400, 'INVALID_AMOUNT', 'bond:'],
      [{ bond: String(BOND + 1n) }, 400, 'INVALID_AMOUNT', 'bond:'],
      [{ nonce: '-1' }, 400, 'INVALID_NONCE', 'nonce:'],
      [{ nonce: '18446744073709551616' }, 400, 'INVALID_NONCE', 'nonce:'],
      [{ signature: 'ab'.repeat(63) }, 400, 'INVALID_SIGNATURE_FORMAT', 'signature:'],
    ];
    for (const [over, status, code, start] of cases) {
      const r = await post(request(candidate, over));
      expect({ over, status: r.status, code: r.body.error?.code }).toEqual({ over, status, code });
      expect(r.body.success).toBe(false);
      expect(r.body.error!.message.startsWith(start) || r.body.error!.message.includes(start)).toBe(true);
    }
    const { name: _n, ...missing } = request(candidate);
    expect((await post(missing)).body.error?.code).toBe('INVALID_REQUEST');
  });

  it('takes nonce as a JSON integer or a decimal string, as every signed route does (issue 37)', async () => {
    // A pending candidate: past the shape and the signature, the book's 403 is the answer.
    for (const nonce of [7, '7']) {
      const r = await post({ ...request(other, { endpoint: '127.0.0.1:1' }, { name: 'cand', endpoint: '127.0.0.1:1', nonce: 7n }), nonce });
      expect({ nonce, status: r.status, code: r.body.error?.code }).toEqual({ nonce, status: 403, code: 'NOT_AUTHORIZED' });
    }
    // An integer that is not exact in JSON, negative or fractional is refused by the schema; send a string.
    for (const nonce of [2 ** 53, -1, 1.5]) {
      const r = await post({ ...request(other), nonce });
      expect({ nonce, status: r.status, code: r.body.error?.code }).toEqual({ nonce, status: 400, code: 'INVALID_REQUEST' });
    }
  });

  it('refuses a signature over another text, or by another key, with 401', async () => {
    const otherText = request(candidate, { bond: String(2n * BOND) }); // signed over BOND, sent with 2×BOND
    expect(await post(otherText)).toMatchObject({ status: 401, body: { success: false, error: { code: 'INVALID_SIGNATURE' } } });
    const otherSigner = request(candidate, {}, {}, other);
    expect(await post(otherSigner)).toMatchObject({ status: 401, body: { error: { code: 'INVALID_SIGNATURE' } } });
  });

  it('refuses a candidate not approved (pending, never applied) with 403', async () => {
    const pending = await post(request(other, { endpoint: '127.0.0.1:1' }, { name: 'cand', endpoint: '127.0.0.1:1' }));
    expect(pending).toMatchObject({ status: 403, body: { error: { code: 'NOT_AUTHORIZED' } } });
    expect(pending.body.error!.message).toContain('is pending');
    const stranger = await generateNodeKeys({ network: 'devnet', chainId: genesis.chainId, genesisHash: '0x' as const });
    const never = await post(request(stranger));
    expect(never).toMatchObject({ status: 403, body: { error: { code: 'NOT_AUTHORIZED' } } });
    expect(never.body.error!.message).toContain('not an applicant');
  });

  it('refuses an approved candidate whose endpoint has no synced node with 409 NOT_SYNCED, submitting nothing', async () => {
    book.approve(other.address);
    const r = await post(request(other, {}, { endpoint: '127.0.0.1:1', name: 'other' }));
    expect(r).toMatchObject({ status: 409, body: { error: { code: 'NOT_SYNCED' } } });
    expect(r.body.error!.message).toContain('no node listening at 127.0.0.1:1');
    const v = await fetch(`${validatorUrl}/v1/validators`).then((x) => x.json() as Promise<any>);
    expect(JSON.stringify(v)).not.toContain(other.address);
  });

  it('submits an approved, synced registration and answers with the final transaction hash', async () => {
    book.approve(candidate.address);
    // What the service's approval does besides (decision 159): the operator's ApproveValidator, final on the chain.
    await httpChainApprover({ chainId: genesis.chainId, nodeUrl: validatorUrl, key: devnetOperatorKey() }).approve(candidate.address);
    // The validator's node learns the candidate's node's listen address and head within a probe or two.
    const r = await waitFor(async () => {
      // The body `npm run node -- validator register --onboarding URL` sends.
      const x = await post(registerRequest(candidate, { bondWei: BOND, name: 'cand', endpoint, nonce: 42n }));
      return x.status === 409 && x.body.error?.code === 'NOT_SYNCED' ? undefined : x;
    }, 30_000, 'the candidate node to show synced');
    expect(r.status).toBe(200);
    expect(r.body.data).toMatchObject({ op: 'RegisterValidator', candidate: candidate.address });
    expect(r.body.data.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(r.body.data.height).toBeGreaterThan(0);
    const v = await fetch(`${validatorUrl}/v1/validators`).then((x) => x.json() as Promise<any>);
    expect(JSON.stringify(v)).toContain(candidate.address);
    // The same registration again: the node's own refusal comes back as it came.
    const again = await post(request(candidate, { nonce: '43' }, { nonce: 43n }));
    expect(again).toMatchObject({ status: 409, body: { error: { code: 'VALIDATOR_EXISTS' } } });
  }, 60_000);

  it('matches an endpoint against a multiaddr by host and port', () => {
    expect(listensAt('/ip4/10.0.0.1/tcp/9000/p2p/X', '10.0.0.1:9000')).toBe(true);
    expect(listensAt('/ip4/10.0.0.1/tcp/9000', '10.0.0.1:9001')).toBe(false);
    expect(listensAt('/ip6/::1/tcp/9000', '[::1]:9000')).toBe(true);
    expect(listensAt('/dns4/Node.Example.org/tcp/9000', 'node.example.org:9000')).toBe(true);
    expect(listensAt('/ip4/10.0.0.1/udp/9000', '10.0.0.1:9000')).toBe(false);
  });
});
