/**
 * What every `start` (the devnet's and `--home`) gives its node the same way: the API
 * listeners, durability, the mempool's and finality's defaults, and the process ending
 * with the node (exit code 2 when it halted).
 */
import { MEMPOOL_BYTES_MAX_DEFAULT, MEMPOOL_TXS_MAX_DEFAULT } from '../../actors/limits';
import type { NodeConfig } from '../node/context';
import type { Node } from '../node/node';

/** How long a write posted to the API waits for its block before it answers with a timeout. */
const FINALITY_TIMEOUT_MS = 10_000;

export function serviceConfig(f: { host: string; port: number; 'session-port': number; fsync: boolean }): Pick<NodeConfig, 'api' | 'sessionApi' | 'syncWrites' | 'mempool' | 'finalityTimeoutMs'> {
  return {
    api: { host: f.host, port: f.port },
    sessionApi: { host: '127.0.0.1', port: f['session-port'] },
    syncWrites: f.fsync,
    mempool: { maxTxs: MEMPOOL_TXS_MAX_DEFAULT, maxBytes: MEMPOOL_BYTES_MAX_DEFAULT },
    finalityTimeoutMs: FINALITY_TIMEOUT_MS,
  };
}

/** SIGINT/SIGTERM stop the node; the process exits when it has stopped (2 when it halted). */
export function exitWithNode(node: Node): void {
  node.supervisor.installSignalHandlers(process, () => undefined);
  node.stopped.then(({ halted }) => process.exit(halted ? 2 : 0));
}
