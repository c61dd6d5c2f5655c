/**
 * The bridge's signers follow a full rotation of the validator set (issue 37 item 1;
 * decisions 148–151), with real processes and the hardhat chain: four genesis validators
 * (test/helpers/bridge-network.ts, epochs of EPOCH blocks, a dispute period of 2 s);
 * genesis validator 4 double-signs from its start and is tombstoned; three new validators
 * join (made with `init`, started with `--bridge` so they watch and sign, approved by the
 * operator, registered with a bond); genesis validators 1 and 2 unbond, then 3. After each
 * change of the chain's active set, the contract's `validatorSet()` comes to equal it
 * (external addresses and powers): each set was signed by the one before, submitted by a
 * relayer and activated after the dispute period. A withdrawal requested at each change
 * is paid; one requested after the last change, with every genesis process stopped, is
 * queued with signatures of the new validators alone and paid.
 *
 * The departed genesis validators' processes keep running until the contract holds the
 * last set: set N reaches the contract signed by more than 2/3 of set N−1's power
 * (decision 151), so a validator that left at the boundary recording set N still signs N
 * (set {3, new ×3} is signed by {1, 2, 3, new ×3}: without 1 and 2, 4 of 6 is not more
 * than 2/3), and its node must be up to do it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createPublicClient, createWalletClient, decodeFunctionData, defineChain, getAddress, http, recoverMessageAddress, type Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { contractArtifacts } from '../../src/bridge/contracts';
import { freePort } from '../../src/cli/launcher';
import { leaveOrReturnTx, nextNonce, registerTx, submit } from '../../src/cli/validator-ops';
import { TxKind } from '../../src/codec/tx';
import { keyFilePath, readKeyFile, type NodeKeys } from '../../src/node/keyfile';
import { APPROVAL_LIFETIME_MS, approvalTx } from '../../src/onboarding/approval';
import { devnetOperatorKey } from '../../src/onboarding/operator-key';
import type { Address } from '../../src/util/bytes';
import { runCli, tempDir } from '../cli/run-cli';
import { BridgeNetwork, USDC } from '../helpers/bridge-network';
import { DEVNET_KEYS, waitFor } from '../helpers/devnet';
import { step } from '../helpers/steps';

const EPOCH = 30;
const TOKEN = 10n ** 18n;
/** The new validators bond what the genesis ones do (devnet: 10,000,000 tokens): equal powers throughout. */
const BOND = 10_000_000n * TOKEN;
const GENESIS = DEVNET_KEYS.validators.slice(0, 4).map((v) => v.address.toLowerCase());
const { ExchangeBridge } = contractArtifacts();

const dir = tempDir('exchain-rotation-');
let b: BridgeNetwork;
afterAll(async () => {
  await b?.stop();
  dir.remove();
}, 60_000);

const t0 = performance.now();
const timings: string[] = [];
/** A labelled step, its wall time printed. */
async function timed<T>(name: string, run: () => Promise<T>): Promise<T> {
  const start = performance.now();
  const r = await step(name, run);
  timings.push(`${((performance.now() - start) / 1000).toFixed(1).padStart(6)} s  ${name}`);
  console.log(`[bridge-rotation] ${timings[timings.length - 1]} (at ${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  return r;
}

interface ValidatorSet {
  validators: string[];
  powers: bigint[];
}

/**
 * The chain's active set as node `via` serves it: ascending addresses (the external
 * accounts) and their powers, the ones with power (an unbonding validator keeps its power,
 * and its place in the set, until the next epoch boundary).
 */
async function chainSet(via: number): Promise<ValidatorSet & { height: number }> {
  const d = (await b.get<{ data: { height: number; validators: { address: string; power: string; status: string }[] } }>('/v1/validators', via)).data;
  const active = d.validators.filter((v) => BigInt(v.power) > 0n).sort((x, y) => (x.address < y.address ? -1 : 1));
  return { height: d.height, validators: active.map((v) => v.address.toLowerCase()), powers: active.map((v) => BigInt(v.power)) };
}

async function contractSet(): Promise<ValidatorSet> {
  const [validators, powers] = await b.bridgeRead<[string[], bigint[]]>('validatorSet');
  return { validators: validators.map((a) => a.toLowerCase()), powers: [...powers] };
}

/**
 * Waits until the chain's active set has exactly `members`, then until the contract's set
 * equals it; returns it.
 */
async function follow(members: string[], via: number): Promise<ValidatorSet> {
  const want = [...members].sort();
  const chain = await waitFor(async () => {
    const s = await chainSet(via).catch(() => undefined);
    return s && JSON.stringify(s.validators) === JSON.stringify(want) ? s : undefined;
  }, 120_000, `the chain's active set ${want.join(',')}`);
  const tChain = performance.now();
  await waitFor(async () => {
    const c = await contractSet();
    return JSON.stringify(c.validators) === JSON.stringify(chain.validators) && c.powers.every((p, i) => p === chain.powers[i]) ? true : undefined;
  }, 60_000, `the contract's set ${want.join(',')}`);
  console.log(`[bridge-rotation]   chain set at height ${chain.height}; contract followed ${((performance.now() - tChain) / 1000).toFixed(1)} s later`);
  return chain;
}

const owner = BridgeNetwork.newAccount();
const requested: string[] = [];
/** Requests a 5 USDC withdrawal through node `via`; its id is kept to check it is paid. */
async function requestWithdrawal(via: number): Promise<string> {
  const w = await b.withdraw(owner, 5n * USDC, BridgeNetwork.newAccount().address, via);
  requested.push(w.withdrawal_id);
  return w.withdrawal_id;
}

/** Submits a raw transaction to node `via` (resolves once final). */
const send = (via: number, tx: Uint8Array) => submit(b.url(via), tx);

describe('the bridge contract follows a full rotation of the validator set', () => {
  it('four genesis validators, one tombstoned; three join; the rest unbond; the contract follows each change and pays throughout', async () => {
    const joiners: { index: number; keys: NodeKeys }[] = [];

    await timed('four genesis validators and the hardhat chain start; validator 4 double-signs', async () => {
      b = await BridgeNetwork.start({
        size: 4,
        disputePeriodSec: 2,
        miningIntervalMs: 1_000,
        epochLengthBlocks: EPOCH,
        // Validator 4 double-signs from its start (tombstoned: no downtime jail first).
        extra: (i) => (i === 4 ? ['--equivocate'] : []),
        editGenesis: (g) => {
          // The three new validators' bonds, paid from the first account.
          g.accounts[0].nativeWei = String(4n * BOND);
          // The new three alone may hold the set at the end (the unbond floor would keep four).
          g.consensus.activeSetMin = 3;
        },
      });
      const fee = b.genesis.fees.withdrawalFeeUsdc;
      await b.deposit(owner.address, 10n * (5n * USDC + fee));
      await b.waitFree(owner.address, 10n * (5n * USDC + fee), 60_000);
    });

    await timed('validator 4 is tombstoned; the contract follows to {1, 2, 3}', async () => {
      await waitFor(async () => ((await b.get(`/v1/validators`)).data.validators.find((v: any) => v.address.toLowerCase() === GENESIS[3])?.status === 'tombstoned' ? true : undefined), 120_000, 'validator 4 tombstoned');
      await requestWithdrawal(1);
      await follow(GENESIS.slice(0, 3), 1);
    });

    await timed('three new validators join (init, started with --bridge, approved, registered); the contract follows to six', async () => {
      const homes = [1, 2, 3].map((k) => join(dir.path, `new-${k}`));
      const made = await Promise.all(homes.map((home) => runCli(['init', '--home', home, '--network', b.genesisFile])));
      for (const r of made) expect(r.code, r.stderr).toBe(0);
      // Each bootstraps from the genesis validators and the new ones before it: the new three must
      // reach one another once the genesis processes are stopped at the end.
      const bootstrap = [...b.net.p2pAddrs];
      for (const [k, home] of homes.entries()) {
        const [api, p2p] = [await freePort(), await freePort()];
        const index = await b.net.addNode(['--home', home, '--network', b.genesisFile, '--bootstrap', bootstrap.join(','), '--p2p-port', String(p2p), '--session-port', '0', '--log-level', 'warn', '--bridge', b.deploymentFile], api);
        bootstrap.push(`/ip4/127.0.0.1/tcp/${p2p}/p2p/${JSON.parse(made[k].stdout.trim().split('\n').pop()!).peer_id}`);
        const keys = readKeyFile(keyFilePath(home));
        joiners.push({ index, keys });
        // Its external account pays the gas of what its relayer sends (queues, executions, sets).
        await b.rpc('hardhat_setBalance', [keys.address, '0x56bc75e2d63100000']);
      }
      // The bonds, from the rich first account over the node's Ethereum RPC.
      const rich = privateKeyToAccount(DEVNET_KEYS.accounts[0].privateKey);
      const chain = defineChain({ id: b.genesis.chainId, name: 'exchange', nativeCurrency: { name: 'EXC', symbol: 'EXC', decimals: 18 }, rpcUrls: { default: { http: [b.url(1)] } } });
      const wallet = createWalletClient({ account: rich, chain, transport: http(b.url(1)) });
      const gasPrice = BigInt(b.genesis.fees.gasPriceWei);
      const pub = createPublicClient({ chain, transport: http(b.url(1)) });
      // Nonces counted here: the node's count is of final transactions, and the three are sent at once.
      const first = await pub.getTransactionCount({ address: rich.address });
      for (const [k, j] of joiners.entries()) await wallet.sendTransaction({ to: j.keys.address as Hex, value: BOND + 10n * TOKEN, type: 'legacy', gasPrice, nonce: first + k });
      await waitFor(async () => {
        for (const j of joiners) if ((await pub.getBalance({ address: j.keys.address as Hex })) < BOND) return undefined;
        return true;
      }, 30_000, 'the bonds funded');
      // The operator (devnet: owner-1) approves each candidate (decision 159), then it registers (through
      // validator 1: a joining node still syncing would check the registration against a state without the approval).
      const operator = devnetOperatorKey();
      for (const j of joiners) await send(1, approvalTx(b.genesis.chainId, operator, j.keys.address as Address, Date.now() + APPROVAL_LIFETIME_MS, nextNonce()));
      for (const [k, j] of joiners.entries()) await send(1, registerTx(j.keys, { bondWei: BOND, name: `new-${k + 1}`, endpoint: '127.0.0.1:9999', nonce: nextNonce() }));
      await requestWithdrawal(1);
      await follow([...GENESIS.slice(0, 3), ...joiners.map((j) => j.keys.address.toLowerCase())], 1);
    });

    const newSet = () => joiners.map((j) => j.keys.address.toLowerCase());
    const genesisKeys = (i: number) => ({ chainId: b.genesis.chainId, address: GENESIS[i], ecdsaPrivateKey: DEVNET_KEYS.validators[i].ecdsaPrivateKey }) as unknown as NodeKeys;

    // The processes of validators that unbond keep running: they sign the next set (see the header).
    await timed('genesis validators 1 and 2 unbond; the contract follows to {3, new ×3}', async () => {
      for (const i of [0, 1]) await send(1, leaveOrReturnTx(genesisKeys(i), TxKind.Unbond, nextNonce()));
      await requestWithdrawal(joiners[0].index);
      await follow([GENESIS[2], ...newSet()], joiners[0].index);
    });

    await timed('genesis validator 3 unbonds; the contract follows to the three new validators', async () => {
      await send(joiners[0].index, leaveOrReturnTx(genesisKeys(2), TxKind.Unbond, nextNonce()));
      await requestWithdrawal(joiners[0].index);
      const last = await follow(newSet(), joiners[0].index);
      expect(last.validators.some((v) => GENESIS.includes(v))).toBe(false);
    });

    await timed('every withdrawal requested during the rotation is paid', async () => {
      for (const id of requested) await b.waitWithdrawal(owner.address, id, 'paid', 90_000, joiners[0].index);
    });

    await timed('with the genesis processes stopped, a withdrawal is signed by the new validators alone and paid', async () => {
      // Only now: until the contract held the last set, the departed genesis validators had
      // to sign their successors (set N is checked against set N−1, decision 151). Now no
      // genesis key counts on the contract, and the new three run the chain and the bridge.
      // (The new three bootstrapped from one another too: nodes learn no peers but their
      // bootstrap ones, so joiners that knew only the genesis nodes would lose each other.)
      for (const i of [1, 2, 3, 4]) await b.net.kill(i);
      const via = joiners[0].index;
      const id = await requestWithdrawal(via);
      await b.waitWithdrawal(owner.address, id, 'paid', 90_000, via);
      // The queue transaction's signatures: every signer is a new validator, and they hold more than 2/3.
      const [queued] = await b.pub.getContractEvents({ address: b.deployment.bridge, abi: ExchangeBridge.abi, eventName: 'WithdrawalQueued', args: { withdrawalId: BigInt(id) }, fromBlock: 0n });
      const tx = await b.pub.getTransaction({ hash: queued.transactionHash! });
      const { args } = decodeFunctionData({ abi: ExchangeBridge.abi, data: tx.input }) as unknown as { args: readonly [bigint, Hex, bigint, bigint, readonly Hex[]] };
      const digest = await b.bridgeRead<Hex>('withdrawalDigest', [args[0], args[1], args[2], args[3]]);
      const signers = await Promise.all(args[4].map((signature) => recoverMessageAddress({ message: { raw: digest }, signature })));
      expect(signers.length).toBeGreaterThanOrEqual(3);
      for (const s of signers) expect(newSet()).toContain(getAddress(s).toLowerCase());
    });

    console.log(`[bridge-rotation] steps:\n${timings.join('\n')}\n total ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  }, 600_000);
});
