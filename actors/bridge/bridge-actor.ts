/**
 * The bridge actor (issue 22, decision 84): on a validator whose node has a bridge
 * deployment file (`--bridge FILE`), the watcher (./watcher.ts: external events →
 * BridgeAttestation) and the relayer (./relayer.ts: WithdrawalSignatures, queueing and
 * paying on the external chain), polled together every pollMs (500) by the actor's own
 * timer, like the oracle actor. They attest, sign and relay only while the node's key is
 * in the active set (execution refuses anyone else's); the watcher keeps scanning
 * meanwhile so it is ready when the key joins.
 *
 * At start the external endpoint must answer with the genesis chain id (eth_chainId): a
 * node pointed at another chain halts with a message naming both, rather than idling.
 * (The deployment file's addresses were compared with genesis.bridge before the node
 * started: ./deployment.ts.) The contract must be bound to this exchange chain (its
 * exchangeChainId and exchangeGenesisHash equal genesis chainId and this chain's genesis
 * hash, decision 150): a chain started anew beside a used bridge is refused, so it credits
 * none of that bridge's deposits and reads none of its payouts as its own. An endpoint that does not answer is retried with backoff
 * (doubling from pollMs up to BACKOFF_MAX_MS), logged once per kind of failure and again
 * when it answers, and shown in /status (`bridge.external`). A reset external chain is
 * refused: the actor stops watching and relaying, logs why at error and shows it.
 */
import type { BridgeDeploymentFile } from '../../src/bridge/evm';
import { BridgeClient } from '../../src/bridge/evm';
import type { Tx } from '../../src/codec/tx';
import { Secp256k1Signer } from '../../src/consensus/signer';
import type { NodeConfig } from '../../src/config/node-config';
import type { Chain } from '../../src/chain/chain';
import { TxError } from '../../src/state/errors';
import { activeValidators } from '../../src/state/validators/set';
import { bridgeDomain } from '../../src/state/bridge/reads';
import { bytesToHex, equalBytes } from '../../src/util/bytes';
import { ActorError, type ActorBehavior, type ActorContext, type ActorRef } from '../actor';
import type { MempoolMsg } from '../mempool/messages';
import type { BridgeMsg, BridgeStats } from './messages';
import { Relayer, RELAYER_TAKEOVER_MS_DEFAULT, type RelayerExternal } from './relayer';
import { Watcher, type WatcherExternal } from './watcher';

export const BRIDGE_POLL_MS_DEFAULT = 500;
/** The longest wait between two tries of an endpoint that does not answer. */
export const BRIDGE_BACKOFF_MAX_MS = 30_000;

export interface BridgeActorOptions {
  /** Time between polls; default 500 ms. */
  pollMs?: number;
  /** The relayer's takeover step (× distance from the designated submitter); default 15 000 ms. */
  takeoverMs?: number;
  /** The external chain; default a BridgeClient of the deployment file (tests may hand one in). */
  external?: WatcherExternal & RelayerExternal & Pick<BridgeClient, 'chainId' | 'head' | 'binding'>;
}

/** What the bridge actor uses of the node (built by src/node/node.ts). */
export interface BridgeDeps {
  /** The deployment file, its key, and genesis (the chain id, the bridge's external chain id). */
  config: Pick<NodeConfig, 'bridge' | 'validatorKey' | 'genesis'>;
  /** The executed chain, read-only: its state, height and last block time. */
  chain: () => Pick<Chain, 'state' | 'height' | 'lastTimestampMs'>;
  /** Stops the node: an endpoint of another chain than genesis names. */
  halt(reason: string): void;
  /** The mempool, which takes its attestations and withdrawal signatures. */
  actors: { mempool: ActorRef<MempoolMsg> };
}

export function newBridgeStats(deployment: BridgeDeploymentFile): BridgeStats {
  return {
    external: 'starting',
    rpcUrl: deployment.rpcUrl,
    active: false,
    polls: 0,
    pollFailures: 0,
    lastError: undefined,
    watcher: {
      cursorBlock: String(deployment.deployBlock),
      headBlock: '0',
      finalizedBlock: '0',
      confirmedBlock: '0',
      finality: 'unknown',
      attestationsSubmitted: 0,
      attestationsRefused: 0,
      claimsSubmitted: 0,
      claimsPending: 0,
      expiriesDetected: 0,
      alertsDetected: 0,
      suspects: 0,
      alertsWaiting: 0,
      pausesSent: 0,
      pauseFailures: 0,
    },
    relayer: { signatureTxsSubmitted: 0, signaturesSubmitted: 0, signatureTxsRefused: 0, queued: 0, executed: 0, sendFailures: 0, inFlight: 0, setSignaturesSubmitted: 0, setsSubmitted: 0, setsActivated: 0 },
  };
}

/** A refusal's code, for logging once per kind. */
function codeOf(err: unknown): string {
  if (err instanceof TxError || err instanceof ActorError) return err.code;
  return err instanceof Error ? err.name : 'ERROR';
}

export function bridgeBehavior(
  deps: BridgeDeps,
  self: () => { send(m: BridgeMsg): boolean },
  stats: BridgeStats,
  opts: BridgeActorOptions = {},
): ActorBehavior<BridgeMsg> {
  const pollMs = opts.pollMs ?? BRIDGE_POLL_MS_DEFAULT;
  if (!(pollMs > 0) || !Number.isFinite(pollMs)) throw new RangeError(`bridge poll interval ${pollMs} ms`);
  const takeoverMs = opts.takeoverMs ?? RELAYER_TAKEOVER_MS_DEFAULT;
  let timer: NodeJS.Timeout | undefined;
  let external: NonNullable<BridgeActorOptions['external']> | undefined;
  let watcher: Watcher | undefined;
  let relayer: Relayer | undefined;
  let signer: Secp256k1Signer | undefined;
  let chainChecked = false;
  let delayMs = pollMs;
  /** The last failure kind logged (the endpoint's, and each mempool refusal's), so each is logged once until it changes. */
  let lastUnreachable: string | undefined;
  let lastAttestationRefusal: string | undefined;
  let lastSignatureRefusal: string | undefined;

  const isRefused = () => stats.external === 'refused';
  const schedule = (ms: number) => {
    timer = setTimeout(() => self().send({ type: 'tick' }), ms);
  };

  const submit = async (tx: Tx) => {
    await deps.actors.mempool.ask((reply) => ({ type: 'submit', tx, signer: signer!.address, reply }));
  };

  const refuse = (reason: string, log: ActorContext['log']) => {
    stats.external = 'refused';
    stats.lastError = reason;
    relayer?.stop();
    watcher?.stop();
    log.error({ rpcUrl: stats.rpcUrl, reason }, `bridge: stopped watching: ${reason}`);
  };

  const logRefusal = (what: string, err: unknown, last: string | undefined, log: ActorContext['log']): string => {
    const code = codeOf(err);
    stats.lastError = `${code}: ${(err as Error).message}`;
    if (code !== last) log.warn({ code, err: (err as Error).message }, `bridge: ${what} transaction refused (logged once per code; retried at the next poll)`);
    return code;
  };

  const deployment = () => deps.config.bridge!;
  const poll = async (ctx: ActorContext) => {
    const genesisBridge = deps.config.genesis.bridge!;
    if (!chainChecked) {
      const id = await external!.chainId();
      if (id !== genesisBridge.externalChainId) {
        const reason = `the external endpoint ${stats.rpcUrl} is chain ${id}, but genesis bridge.externalChainId is ${genesisBridge.externalChainId}: the --bridge deployment file names another chain`;
        refuse(reason, ctx.log);
        deps.halt(`bridge: ${reason}`);
        return;
      }
      const bound = await external!.binding();
      const ours = bridgeDomain(deps.chain().state);
      if (bound.exchangeChainId !== ours.exchangeChainId || !equalBytes(bound.genesisHash, ours.genesisHash)) {
        return refuse(
          `the bridge ${deployment().bridge} is bound to exchange chain ${bound.exchangeChainId} with genesis ${bytesToHex(bound.genesisHash)}, ` +
            `this chain is ${ours.exchangeChainId} with genesis ${bytesToHex(ours.genesisHash)}: a chain started beside another chain's bridge (deploy a bridge for this genesis)`,
          ctx.log,
        );
      }
      chainChecked = true;
    }
    const head = await external!.head();
    if (stats.external !== 'ok') ctx.log.info({ rpcUrl: stats.rpcUrl, head: String(head.number) }, 'bridge: external chain reachable, watching the bridge');
    stats.external = 'ok';
    lastUnreachable = undefined;
    const active = activeValidators(deps.chain().state).byAddress.has(signer!.address);
    if (active !== stats.active) {
      ctx.log.info({ validator: signer!.address, active }, active ? 'bridge: in the active set, attesting and relaying' : 'bridge: not in the active set, neither attesting nor relaying');
    }
    stats.active = active;
    const w = await watcher!.poll(head, active);
    if (w.refused) return refuse(w.refused, ctx.log);
    if (w.refusedError) lastAttestationRefusal = logRefusal('attestation', w.refusedError, lastAttestationRefusal, ctx.log);
    else if (w.submitted > 0) lastAttestationRefusal = undefined;
    if (active) {
      const r = await relayer!.poll(head);
      if (r.refusedError) lastSignatureRefusal = logRefusal('withdrawal signatures', r.refusedError, lastSignatureRefusal, ctx.log);
    }
    // The validator sets: an outgoing validator still signs its successor (decision 151).
    const s = await relayer!.pollSets(head, active);
    if (s.refusedError) lastSignatureRefusal = logRefusal('bridge set signatures', s.refusedError, lastSignatureRefusal, ctx.log);
    stats.polls++;
  };

  return {
    start(ctx) {
      const { config } = deps;
      const deployment = config.bridge;
      const key = config.validatorKey;
      const genesisBridge = config.genesis.bridge;
      if (!deployment || !key || !genesisBridge) {
        // Which one is missing, and whether that is the operator's to fix: a network without
        // a bridge, or a node without a validator key, has nothing to watch.
        const missing = !genesisBridge ? 'the genesis has no bridge' : !key ? 'this node has no validator key' : 'no --bridge deployment file was given';
        if (!deployment && genesisBridge && key) ctx.log.warn({ missing }, 'bridge: not watching the external chain: no --bridge deployment file was given; a validator of a network with a bridge must start with --bridge FILE to attest deposits and relay withdrawals');
        else ctx.log.info({ missing }, `bridge: not watching the external chain: ${missing}`);
        return;
      }
      signer = new Secp256k1Signer(key);
      external =
        opts.external ??
        new BridgeClient({ rpcUrl: deployment.rpcUrl, bridge: deployment.bridge, usdc: deployment.usdc, expectedChainId: genesisBridge.externalChainId });
      const chainId = config.genesis.chainId;
      const state = () => deps.chain().state;
      const height = () => deps.chain().height;
      watcher = new Watcher({
        external,
        signer,
        privateKey: key,
        deployBlock: BigInt(deployment.deployBlock),
        state,
        height,
        blockTimeMs: () => deps.chain().lastTimestampMs,
        nowMs: () => Date.now(),
        chainId,
        submit,
        stats: stats.watcher,
        log: ctx.log,
      });
      relayer = new Relayer({
        external,
        signer,
        privateKey: key,
        state,
        height,
        blockTimeMs: () => deps.chain().lastTimestampMs,
        chainId,
        takeoverMs,
        submit,
        stats: stats.relayer,
        log: ctx.log,
      });
      if (stats.external === 'refused') stats.external = 'starting';
      schedule(0);
    },
    async handle(msg, ctx) {
      if (msg.type !== 'tick' || !watcher || stats.external === 'refused') return;
      try {
        await poll(ctx);
        delayMs = pollMs;
      } catch (err) {
        // The endpoint did not answer (or answered nonsense): back off, say so once per kind.
        stats.pollFailures++;
        stats.external = 'unreachable';
        const kind = codeOf(err);
        stats.lastError = `${kind}: ${(err as Error).message}`;
        if (kind !== lastUnreachable) ctx.log.warn({ rpcUrl: stats.rpcUrl, kind, err: (err as Error).message }, 'bridge: external chain poll failed; retrying with backoff');
        lastUnreachable = kind;
        delayMs = Math.min(delayMs * 2, BRIDGE_BACKOFF_MAX_MS);
      } finally {
        // A refusal (reset chain, another chain) stops the polls until a restart.
        if (!isRefused()) schedule(delayMs);
      }
    },
    stop() {
      clearTimeout(timer);
      relayer?.stop();
      watcher?.stop();
    },
  };
}
