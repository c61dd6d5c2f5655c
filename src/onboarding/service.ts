/**
 * The onboarding service (contract [C-service-onboarding]; decision 75): its own fastify
 * app on its own port, over its own LevelDB, separate from any node. `buildOnboardingApp`
 * makes the app over any `OnboardingBook`; `startOnboardingService` starts the service's
 * actors over the data folder (src/onboarding/service-actors.ts: store, review, downloads,
 * node client, supervised as the node's are), listens (default 127.0.0.1:8080) and closes
 * the server, then the actors in reverse order. GET /status shows each actor's state.
 * src/onboarding/main.ts runs it as a process (`npm run onboarding`); `npm start` runs it
 * beside the devnet (src/cli/launcher.ts).
 *
 * With a review (decision 78) the app also serves the operator's loopback-only signed
 * routes (src/onboarding/operator-routes.ts), the downloads and the checksums
 * (src/onboarding/download-routes.ts). With a node and the operator's key, an approval
 * is sent to the chain as ApproveValidator before the book records it (decision 159,
 * src/onboarding/approval.ts). `startOnboardingService` always has one: its
 * operator is the given address or the network's default (`defaultOperator`), its
 * artifacts those given (loaded once, at start; none given: none served).
 */
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance } from 'fastify';
import { installErrorHandling, installValidation } from '../api/envelope';
import { deriveDevnetKeys, TESTNET_PUBLIC } from '../genesis/build';
import type { Address } from '../util/bytes';
import type { Logger } from '../util/log';
import { APPLY_WINDOW_MS_DEFAULT } from './application-auth';
import { APPLY_LIMITS_DEFAULT, ApplyThrottle, type ApplyLimits } from './apply-throttle';
import { loadArtifacts, type Artifacts, type ArtifactSources } from './artifacts';
import type { DownloadBook, NodeRegistrar, OnboardingBook, OperatorBook, ServiceHealth } from './book';
import { registerDownloadRoutes } from './download-routes';
import { httpChainApprover } from './approval';
import { httpNodeRegistrar } from './node-client';
import { devnetOperatorKey, type OperatorKey } from './operator-key';
import { OPERATOR_WINDOW_MS_DEFAULT } from './operator-auth';
import { registerOperatorRoutes, type OperatorRouteConfig } from './operator-routes';
import { registerRegisterRoute, type RegisterNetwork } from './register';
import { registerOnboardingRoutes, registerStatusRoute } from './routes';
import { startOnboardingActors, type OnboardingActorName, type StoreReader } from './service-actors';
import type { NetworkBinding } from './store';

export const ONBOARDING_HOST_DEFAULT = '127.0.0.1';
export const ONBOARDING_PORT_DEFAULT = 8080;
/** An application is four short strings; nothing the service takes is larger. */
export const ONBOARDING_BODY_LIMIT_BYTES = 16 * 1024;

/** What the operator's review and the downloads need: the store's two faces, the operator's settings, the loaded artifacts. */
export interface ReviewOptions {
  book: OperatorBook & DownloadBook;
  operator: OperatorRouteConfig;
  artifacts: Artifacts;
}

/** What apply needs (decision 164): the network's chain id, the clock (default Date.now), the timestamp window and the budgets (defaults: 5 minutes, APPLY_LIMITS_DEFAULT). */
export interface ApplyOptions {
  chainId: number;
  nowMs?: () => number;
  windowMs?: number;
  limits?: ApplyLimits;
}

/**
 * `apply`: what the applications are checked against (decision 164); `review`: the
 * operator's routes and the downloads (decision 78); `register`: the network
 * and node POST /api/validators/register submits to (decision 79), through `register.node`
 * (the node-client actor; absent: straight over HTTP, one attempt); `health`: GET /status.
 * Without one, its routes are not served.
 */
export async function buildOnboardingApp(
  book: OnboardingBook,
  log: Logger,
  apply: ApplyOptions,
  review?: ReviewOptions,
  register?: RegisterNetwork & { node?: NodeRegistrar },
  health?: ServiceHealth,
): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: ONBOARDING_BODY_LIMIT_BYTES, return503OnClosing: true });
  installErrorHandling(app, log);
  installValidation(app);
  await app.register(cors, { origin: '*', methods: ['GET', 'POST', 'OPTIONS'] });
  const nowMs = apply.nowMs ?? Date.now;
  const throttle = new ApplyThrottle(apply.limits ?? APPLY_LIMITS_DEFAULT, nowMs);
  registerOnboardingRoutes(app, book, { chainId: apply.chainId, nowMs, windowMs: apply.windowMs ?? APPLY_WINDOW_MS_DEFAULT, throttle });
  if (review !== undefined) {
    registerOperatorRoutes(app, review.book, review.operator);
    registerDownloadRoutes(app, review.book, review.artifacts);
  }
  if (register !== undefined) registerRegisterRoute(app, book, register, register.node ?? httpNodeRegistrar(register));
  if (health !== undefined) registerStatusRoute(app, health);
  await app.ready();
  return app;
}

/**
 * The operator a network's service trusts when none is given: on devnet the devnet's
 * owner-1 (its key is public, in genesis/devnet-keys.json, so `npm run operator` signs
 * with it by default), on testnet the testnet's operator account (its key is kept
 * outside the repository); any other network must name one (`--operator`).
 */
export function defaultOperator(network: string): Address | undefined {
  if (network === 'devnet') return deriveDevnetKeys().owners[0].address;
  if (network === 'testnet') return TESTNET_PUBLIC.operators[0];
  return undefined;
}

export interface OnboardingService {
  app: FastifyInstance;
  /** What the store holds, read through the store actor. */
  store: StoreReader;
  /** Each actor's state (GET /status). */
  health: ServiceHealth;
  /** `http://host:port` as listened. */
  address: string;
  /** The operator address the review routes accept. */
  operator: Address;
  close(): Promise<void>;
}

export async function startOnboardingService(p: {
  dataDir: string;
  binding: NetworkBinding;
  log: Logger;
  host?: string;
  port?: number;
  nowMs?: () => number;
  register?: RegisterNetwork;
  /** The operator's address (default: the key's, else `defaultOperator` of the network). */
  operator?: Address;
  /**
   * The operator's key, which signs the ApproveValidator the service sends when the
   * operator approves (decision 159; with `register`, the node it goes to). Default on
   * devnet: owner-1, the devnet genesis's operator. Without one, approvals stay in the book.
   */
  operatorKey?: OperatorKey;
  /** The artifacts served (default: none). */
  artifacts?: ArtifactSources;
  /** Token lifetime (default 24 hours) and the operator request window (default 5 minutes). */
  tokenLifetimeMs?: number;
  operatorWindowMs?: number;
  /** The apply budgets (default APPLY_LIMITS_DEFAULT) and the window of an application's timestamp (default 5 minutes). */
  applyLimits?: ApplyLimits;
  applyWindowMs?: number;
  /**
   * Called when an actor gave up (its restarts exceeded), after the service closed: the
   * process exits (src/onboarding/main.ts). Default: nothing more than the close.
   */
  onHalt?: (err: unknown) => void;
}): Promise<OnboardingService> {
  // Devnet's default key is owner-1's, for a service whose operator is owner-1 (the default).
  const devnetKey = p.binding.network === 'devnet' ? devnetOperatorKey() : undefined;
  const operatorKey = p.operatorKey ?? (devnetKey !== undefined && (p.operator === undefined || p.operator.toLowerCase() === devnetKey.address) ? devnetKey : undefined);
  const operator = p.operator ?? operatorKey?.address ?? defaultOperator(p.binding.network);
  if (operator === undefined) throw new Error(`network ${p.binding.network} has no default operator: give its address (--operator 0x…)`);
  if (operatorKey !== undefined && operatorKey.address !== operator.toLowerCase()) {
    throw new Error(`the operator key's address ${operatorKey.address} is not the operator ${operator}: the approvals it signs would not be the operator's`);
  }
  const approver = p.register !== undefined && operatorKey !== undefined ? httpChainApprover({ chainId: p.binding.chainId, nodeUrl: p.register.nodeUrl, key: operatorKey }) : undefined;
  if (approver === undefined) p.log.warn('no operator key and node: approvals are recorded here only; send each ApproveValidator with `npm run node -- validator approve` or registrations are refused on chain');
  const artifacts = await loadArtifacts(p.artifacts ?? {});
  const nowMs = p.nowMs ?? Date.now;
  const windowMs = p.operatorWindowMs ?? OPERATOR_WINDOW_MS_DEFAULT;
  let service: OnboardingService | undefined;
  const actors = await startOnboardingActors({
    dataDir: p.dataDir,
    binding: p.binding,
    log: p.log,
    nowMs,
    tokenLifetimeMs: p.tokenLifetimeMs,
    operatorWindowMs: windowMs,
    node: p.register === undefined ? undefined : httpNodeRegistrar(p.register),
    approver,
    // An actor that keeps failing: the service halts rather than limp on, as the node does.
    onGiveUp: (actor: OnboardingActorName, err: unknown) => {
      p.log.fatal({ err, actor }, 'onboarding actor gave up: closing the service');
      void (service?.close() ?? Promise.resolve()).finally(() => p.onHalt?.(err));
    },
  });
  let app: FastifyInstance;
  let address: string;
  try {
    const review = {
      book: actors.book,
      operator: { network: p.binding.network, chainId: p.binding.chainId, genesisHash: p.binding.genesisHash, operator, nowMs, windowMs },
      artifacts,
    };
    const register = p.register === undefined ? undefined : { ...p.register, node: actors.node };
    const apply = { chainId: p.binding.chainId, nowMs, windowMs: p.applyWindowMs, limits: p.applyLimits };
    app = await buildOnboardingApp(actors.book, p.log, apply, review, register, actors.health);
    address = await app.listen({ host: p.host ?? ONBOARDING_HOST_DEFAULT, port: p.port ?? ONBOARDING_PORT_DEFAULT });
  } catch (err) {
    await actors.stop();
    throw err;
  }
  let closing: Promise<void> | undefined;
  service = {
    app,
    store: actors.reader,
    health: actors.health,
    address,
    operator,
    close() {
      closing ??= (async () => {
        await app.close();
        await actors.stop();
      })();
      return closing;
    },
  };
  return service;
}
