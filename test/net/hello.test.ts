/**
 * The validator hello (src/net/hello.ts, actors/p2p/validator-peers.ts, decision 71): a
 * node whose peer id does not follow from its validator key proves which validator it
 * is. Verified: a valid hello binds; a forged signature, another chain id, an address
 * that is not a validator, a hello naming another peer id and malformed bytes are each
 * refused with their own code and bind nothing. Then over real libp2p: a transport with a
 * key file's Ed25519 peer key greets a devnet-identity peer, which binds it once the
 * address becomes a validator (the retry), and a peer replaying that hello is refused.
 */
import { privateKeyFromProtobuf } from '@libp2p/crypto/keys';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeHelloAnswer, HELLO_RETRY_MS, HelloSender, helloProtocol, ValidatorPeers } from '../../actors/p2p/validator-peers';
import { privateKeyToAddress } from '../../src/crypto/secp256k1';
import { decodeHello, encodeHello, HELLO_BYTES_MAX, signHello, verifyHello } from '../../src/net/hello';
import { Libp2pTransport } from '../../src/net/libp2p';
import { TOPICS, type GossipHandlers } from '../../src/net/transport';
import { generateNodeKeys } from '../../src/node/keyfile';
import { hexToBytes, type Address } from '../../src/util/bytes';
import { createLogger } from '../../src/util/log';
import { DEVNET_KEYS, waitFor } from '../helpers/devnet';

const CHAIN = 713799;
const KEY = hexToBytes(DEVNET_KEYS.validators[0].ecdsaPrivateKey);
const OTHER_KEY = hexToBytes(DEVNET_KEYS.validators[1].ecdsaPrivateKey);
const ADDRESS = privateKeyToAddress(KEY);
// Two peer ids in the form of Ed25519 ones (verifyHello compares them as text; nothing here parses them).
const PEER = '12D3KooWGRUVh2upFSGDqdXhvwXnnJHKRNPUqDfxRsZSJrLFwjbN';
const OTHER_PEER = '12D3KooWQYhTNQdmr3ArTeUHRYzFg94BKyTkoWBDWez9kSCVe2Xo';
const everyone = () => true;

describe('hello', () => {
  it('round-trips and stays within its bound', () => {
    const h = signHello(KEY, CHAIN, PEER);
    const bytes = encodeHello(h);
    expect(bytes.length).toBeLessThanOrEqual(HELLO_BYTES_MAX);
    expect(decodeHello(bytes)).toEqual(h);
    expect(h.address).toBe(ADDRESS);
  });

  it('binds a valid hello to the signing validator', () => {
    expect(verifyHello(encodeHello(signHello(KEY, CHAIN, PEER)), { chainId: CHAIN, from: PEER, isValidator: (a) => a === ADDRESS })).toEqual({ ok: true, address: ADDRESS });
  });

  it('refuses a forged signature: another key claiming the address', () => {
    const forged = { ...signHello(OTHER_KEY, CHAIN, PEER), address: ADDRESS };
    expect(verifyHello(encodeHello(forged), { chainId: CHAIN, from: PEER, isValidator: everyone })).toMatchObject({ ok: false, code: 'BAD_SIGNATURE' });
    // A flipped bit of a valid signature.
    const h = signHello(KEY, CHAIN, PEER);
    const sig = h.signature.slice();
    sig[10] ^= 1;
    expect(verifyHello(encodeHello({ ...h, signature: sig }), { chainId: CHAIN, from: PEER, isValidator: everyone })).toMatchObject({ ok: false, code: 'BAD_SIGNATURE' });
  });

  it('refuses a hello for another chain id, even relabelled', () => {
    const other = signHello(KEY, CHAIN + 1, PEER);
    expect(verifyHello(encodeHello(other), { chainId: CHAIN, from: PEER, isValidator: everyone })).toMatchObject({ ok: false, code: 'WRONG_CHAIN' });
    // The chain id is inside the signed digest: relabelling breaks the signature.
    expect(verifyHello(encodeHello({ ...other, chainId: CHAIN }), { chainId: CHAIN, from: PEER, isValidator: everyone })).toMatchObject({ ok: false, code: 'BAD_SIGNATURE' });
  });

  it('refuses an address that is not a validator of the chain state', () => {
    expect(verifyHello(encodeHello(signHello(KEY, CHAIN, PEER)), { chainId: CHAIN, from: PEER, isValidator: () => false })).toMatchObject({ ok: false, code: 'NOT_A_VALIDATOR' });
  });

  it('refuses a hello that names another peer than the connection authenticated (a replay)', () => {
    const h = signHello(KEY, CHAIN, PEER);
    expect(verifyHello(encodeHello(h), { chainId: CHAIN, from: OTHER_PEER, isValidator: everyone })).toMatchObject({ ok: false, code: 'PEER_MISMATCH' });
    expect(verifyHello(encodeHello({ ...h, peerId: OTHER_PEER }), { chainId: CHAIN, from: OTHER_PEER, isValidator: everyone })).toMatchObject({ ok: false, code: 'BAD_SIGNATURE' });
  });

  it('refuses malformed bytes, another version and trailing bytes', () => {
    const bytes = encodeHello(signHello(KEY, CHAIN, PEER));
    const judge = (b: Uint8Array) => verifyHello(b, { chainId: CHAIN, from: PEER, isValidator: everyone });
    expect(judge(bytes.subarray(0, 30))).toMatchObject({ ok: false, code: 'MALFORMED' });
    expect(judge(Uint8Array.from([...bytes, 0]))).toMatchObject({ ok: false, code: 'MALFORMED' });
    const v2 = bytes.slice();
    v2[0] = 2;
    expect(judge(v2)).toMatchObject({ ok: false, code: 'MALFORMED' });
    expect(judge(new Uint8Array(HELLO_BYTES_MAX + 1))).toMatchObject({ ok: false, code: 'MALFORMED' });
  });

  it('binds only on a valid hello; a later binding of an address replaces the earlier peer', () => {
    const peers = new ValidatorPeers();
    const isValidator = (a: Address) => a === ADDRESS;
    for (const bad of [signHello(KEY, CHAIN + 1, PEER), { ...signHello(OTHER_KEY, CHAIN, PEER), address: ADDRESS }]) {
      expect(peers.receiveHello(encodeHello(bad), PEER, CHAIN, isValidator).ok).toBe(false);
    }
    expect(peers.receiveHello(encodeHello(signHello(OTHER_KEY, CHAIN, PEER)), PEER, CHAIN, isValidator).ok).toBe(false);
    expect(peers.isValidatorPeer(PEER)).toBe(false);
    expect(peers.stats.hellosRefused).toEqual({ WRONG_CHAIN: 1, BAD_SIGNATURE: 1, NOT_A_VALIDATOR: 1 });

    expect(peers.receiveHello(encodeHello(signHello(KEY, CHAIN, PEER)), PEER, CHAIN, isValidator).ok).toBe(true);
    expect(peers.address(PEER)).toBe(ADDRESS);
    expect(peers.peer(ADDRESS)).toBe(PEER);
    // The validator restarted with another peer key.
    expect(peers.receiveHello(encodeHello(signHello(KEY, CHAIN, OTHER_PEER)), OTHER_PEER, CHAIN, isValidator).ok).toBe(true);
    expect(peers.peer(ADDRESS)).toBe(OTHER_PEER);
    expect(peers.isValidatorPeer(PEER)).toBe(false);
    expect(peers.stats.peersBound).toBe(2);
  });
});

// Shows contract [D-validators-keys] as decision 190 keeps it: a key file's peer speaks for its validator once a hello signed by the validator's secp256k1 key binds it.
describe('hello over libp2p', () => {
  const log = createLogger({ destination: 'silent' });
  const nodes: Libp2pTransport[] = [];
  const senders: HelloSender[] = [];
  afterAll(async () => {
    for (const s of senders) s.stop();
    for (const n of nodes) await n.stop();
  });
  const quiet = Object.fromEntries(TOPICS.map((t) => [t, () => {}])) as unknown as GossipHandlers;

  it("binds a key file's peer once its address is a validator, and refuses a replay of its hello", async () => {
    // The receiver: a devnet identity (its validator key is its peer key).
    const validators = new Set<Address>();
    const receiver = new ValidatorPeers();
    const b = new Libp2pTransport({ chainId: CHAIN, privateKey: OTHER_KEY, listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [], log });
    await b.start(quiet);
    nodes.push(b);
    await b.handle(helloProtocol(CHAIN), async (data, from) => encodeHelloAnswer(receiver.receiveHello(data, from, CHAIN, (a) => validators.has(a))));

    // The joining validator: the key file's Ed25519 peer key, its secp256k1 key signs the hello.
    const keys = await generateNodeKeys({ network: 'devnet', chainId: CHAIN, genesisHash: `0x${'00'.repeat(32)}` });
    const a = new Libp2pTransport({ chainId: CHAIN, peerKey: hexToBytes(keys.peerPrivateKey), listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [b.listenAddresses()[0]], log, redialMs: 200 });
    await a.start(quiet);
    nodes.push(a);
    expect(a.id).toBe(keys.peerId);
    expect(privateKeyFromProtobuf(hexToBytes(keys.peerPrivateKey)).type).toBe('Ed25519');
    const stats = new ValidatorPeers().stats;
    const refusals: string[] = [];
    const sender = new HelloSender(
      encodeHello(signHello(hexToBytes(keys.ecdsaPrivateKey), CHAIN, a.id)),
      (peer, hello) => a.request(peer, helloProtocol(CHAIN), hello, 5_000),
      () => a.peers(),
      stats,
      (_peer, reason) => refusals.push(reason),
    );
    senders.push(sender);
    sender.start();
    await waitFor(() => refusals.length > 0 || undefined, 10_000, 'first hello refused');
    expect(refusals[0]).toMatch(/^NOT_A_VALIDATOR: /);
    expect(receiver.isValidatorPeer(a.id)).toBe(false);

    // Registered: the next round of hellos binds it.
    validators.add(keys.address);
    // The receiver binds before its answer reaches the sender: wait for both.
    await waitFor(() => (receiver.address(a.id) === keys.address && stats.hellosAcceptedByPeers > 0) || undefined, HELLO_RETRY_MS * 3, 'bound after registration');
    expect(stats.hellosAcceptedByPeers).toBe(1);

    // A third peer replays a's hello: it names a's peer id, not the replayer's.
    const c = new Libp2pTransport({ chainId: CHAIN, listen: ['/ip4/127.0.0.1/tcp/0'], bootstrap: [b.listenAddresses()[0]], log, redialMs: 200 });
    await c.start(quiet);
    nodes.push(c);
    await waitFor(() => c.peers().length === 1 || undefined, 10_000, 'replayer connected');
    const answer = await c.request(b.id, helloProtocol(CHAIN), encodeHello(signHello(hexToBytes(keys.ecdsaPrivateKey), CHAIN, a.id)));
    expect(answer[0]).toBe(0);
    expect(new TextDecoder().decode(answer.subarray(1))).toMatch(/^PEER_MISMATCH: /);
    expect(receiver.isValidatorPeer(c.id)).toBe(false);
    expect(receiver.peer(keys.address)).toBe(a.id);
  });
});
