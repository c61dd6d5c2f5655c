/**
 * The onboarding service (contract [C-service-onboarding]; decision 75): its own fastify
 * app on its own port, over its own LevelDB, separate from any node. `buildOnboardingApp`
 * makes the app over any `OnboardingBook`; `startOnboardingService` opens the store in the
 * data folder, listens (default 127.0.0.1:8080) and closes both in order.
 * src/onboarding/main.ts runs it as a process (`npm run onboarding`).
 */
import cors from '@fastify/cors';
import Fastify, { type FastifyInstance } from 'fastify';
import { installErrorHandling, installValidation } from '../api/envelope';
import type { Logger } from '../util/log';
import type { OnboardingBook } from './book';
import { registerRegisterRoute, type RegisterNetwork } from './register';
import { registerOnboardingRoutes } from './routes';
import { OnboardingStore, type NetworkBinding } from './store';

export const ONBOARDING_HOST_DEFAULT = '127.0.0.1';
export const ONBOARDING_PORT_DEFAULT = 8080;
/** An application is four short strings; nothing the service takes is larger. */
export const ONBOARDING_BODY_LIMIT_BYTES = 16 * 1024;

/** `register`: the network and node POST /api/validators/register submits to (decision 79); without it the route is not served. */
export async function buildOnboardingApp(book: OnboardingBook, log: Logger, register?: RegisterNetwork): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: ONBOARDING_BODY_LIMIT_BYTES, return503OnClosing: true });
  installErrorHandling(app, log);
  installValidation(app);
  await app.register(cors, { origin: '*', methods: ['GET', 'POST', 'OPTIONS'] });
  registerOnboardingRoutes(app, book);
  if (register) registerRegisterRoute(app, book, register);
  await app.ready();
  return app;
}

export interface OnboardingService {
  app: FastifyInstance;
  store: OnboardingStore;
  /** `http://host:port` as listened. */
  address: string;
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
}): Promise<OnboardingService> {
  const store = await OnboardingStore.open(p.dataDir, p.binding, p.nowMs);
  let app: FastifyInstance;
  let address: string;
  try {
    app = await buildOnboardingApp(store, p.log, p.register);
    address = await app.listen({ host: p.host ?? ONBOARDING_HOST_DEFAULT, port: p.port ?? ONBOARDING_PORT_DEFAULT });
  } catch (err) {
    await store.close();
    throw err;
  }
  return {
    app,
    store,
    address,
    async close() {
      await app.close();
      await store.close();
    },
  };
}
