/**
 * A local multi-validator network of real node processes (libp2p over TCP on loopback,
 * LevelDB on disk), started the way the launcher starts it, but with each process in
 * the test's hands: kill, stop, continue, restart with other flags. Each node runs the
 * build made fresh from the working tree for the run (test/helpers/node-program.ts), or
 * another single-file build when the test names one (`binary`, useBinary): the upgrade
 * test runs two builds on the same data.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort } from '../../src/cli/launcher';
import { peerIdOfPublicKey } from '../../src/net/libp2p';
import { hexToBytes } from '../../src/util/bytes';
import { trimValidators } from '../../src/cli/devnet';
import { loadGenesisFile } from '../../src/genesis/load';
import { devnetGenesis, ROOT, tempDir, waitFor } from './devnet';
import { NODE_PROGRAM } from './node-program';

/**
 * Node processes still running: killed if this process exits without stopping them (a
 * crashed test run, a bench whose output pipe closed), so none is left behind holding
 * CPU and ports. A SIGKILLed parent cannot do this; nothing can.
 */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const p of live) p.kill('SIGKILL');
});

export interface NetNode {
  index: number;
  url: string;
  proc: ChildProcess | undefined;
  output: string;
}

export class LocalNetwork {
  readonly nodes: NetNode[] = [];
  private readonly dir = tempDir('exchain-net-');

  /** Validator `index`'s data folder. */
  dataDir(index: number): string {
    return join(this.dir.path, `validator-${index}`);
  }
  private readonly args: string[][] = [];
  /** Processes this helper is stopping or killing (their exit is expected). */
  private readonly ending = new Set<ChildProcess>();
  /** Each validator's libp2p address (with its peer id). */
  readonly p2pAddrs: string[] = [];
  /** The built file each node runs (undefined: the source tree). */
  private readonly binaries: (string | undefined)[] = [];
  /** Undoes what `prepare` did to the data folders (say, unmounts a disk) before they are removed. */
  private unprepare: (() => void) | undefined;

  private constructor(readonly size: number) {}

  /**
   * `size` validators of the devnet, or of `genesisFile` (a devnet genesis with other
   * parameters, say short epochs) when given, its validators' libp2p on `p2pPorts` when
   * given (else free ports). `prepare` runs on the data folders before
   * the first launch (say, mounts a disk on one's `chain`) and returns what stop undoes.
   */
  static async start(
    size: number,
    extra: (index: number) => string[] = () => [],
    opts: { genesisFile?: string; binary?: string; prepare?: (dataDir: (index: number) => string) => () => void; p2pPorts?: number[] } = {},
  ): Promise<LocalNetwork> {
    const net = new LocalNetwork(size);
    try {
      if (opts.prepare) net.unprepare = opts.prepare((i) => net.dataDir(i));
    } catch (err) {
      net.dir.remove();
      throw err;
    }
    const genesis = opts.genesisFile ? trimValidators(loadGenesisFile(opts.genesisFile), size) : devnetGenesis(size).genesis;
    // Given: the ports the genesis file's endpoints name (a test of discovery from chain state).
    const p2pPorts = opts.p2pPorts ?? (await Promise.all(genesis.validators.map(() => freePort())));
    const apiPorts = await Promise.all(genesis.validators.map(() => freePort()));
    const addrs = await Promise.all(
      genesis.validators.map(async (v, i) => `/ip4/127.0.0.1/tcp/${p2pPorts[i]}/p2p/${await peerIdOfPublicKey(hexToBytes(v.ecdsaPubkey))}`),
    );
    net.p2pAddrs.push(...addrs);
    for (let i = 0; i < size; i++) {
      net.args.push([
        '--validators', String(size),
        '--validator-index', String(i + 1),
        '--data-dir', join(net.dir.path, `validator-${i + 1}`),
        '--port', String(apiPorts[i]),
        '--session-port', '0',
        '--p2p-port', String(p2pPorts[i]),
        '--bootstrap', addrs.filter((_, j) => j !== i).join(','),
        '--log-level', 'warn',
        // Tests poll from 127.0.0.1: no rate limits (decision 98).
        '--no-rate-limit',
        ...(opts.genesisFile ? ['--genesis', opts.genesisFile] : []),
      ]);
      net.nodes.push({ index: i + 1, url: `http://127.0.0.1:${apiPorts[i]}`, proc: undefined, output: '' });
      net.binaries.push(opts.binary);
    }
    // One that never gets ready fails the start: the others are stopped, not left running
    // (the caller never gets `net` to stop them, and they would load every later test).
    const launched = await Promise.allSettled(net.nodes.map((n) => net.launch(n.index, extra(n.index))));
    const failed = launched.find((r) => r.status === 'rejected');
    if (failed) {
      await net.stop();
      throw failed.reason;
    }
    return net;
  }

  /**
   * One more node process, run with `start` and these flags (say `--home DIR --bootstrap …`),
   * serving its API on `apiPort`; returns its index for launch/kill/status.
   */
  async addNode(args: string[], apiPort: number): Promise<number> {
    this.args.push(['--port', String(apiPort), '--no-rate-limit', ...args]);
    const index = this.nodes.length + 1;
    this.nodes.push({ index, url: `http://127.0.0.1:${apiPort}`, proc: undefined, output: '' });
    await this.launch(index);
    return index;
  }

  /** The single-file build validator `index` runs from its next launch (undefined: the run's build). */
  useBinary(index: number, file: string | undefined): void {
    this.binaries[index - 1] = file;
  }

  /** Starts (or restarts) validator `index` with its data folder kept; resolves once it serves. */
  async launch(index: number, extra: string[] = []): Promise<void> {
    const node = this.nodes[index - 1];
    node.output = '';
    // One process (no wrapper), so signals hit the node itself; the V8 flags `npm start` gives it.
    const binary = this.binaries[index - 1];
    const program = binary ? [binary] : NODE_PROGRAM;
    const proc = spawn(process.execPath, ['--max-semi-space-size=64', ...program, 'start', ...this.args[index - 1], ...extra], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    node.proc = proc;
    live.add(proc);
    proc.once('exit', (code, signal) => {
      live.delete(proc);
      // A validator that ends by itself (a halt, a crash) says why in its output: show it,
      // or a test that later times out waiting for it leaves nothing to go on.
      if (!this.ending.has(proc)) process.stderr.write(`validator ${index} exited by itself (code ${code}, signal ${signal}); its last output:\n${node.output.slice(-6_000)}\n`);
    });
    proc.stdout!.on('data', (d) => (node.output += d));
    proc.stderr!.on('data', (d) => (node.output += d));
    await waitFor(
      () => (node.output.includes('READY') ? true : proc.exitCode !== null ? Promise.reject(new Error(`validator ${index} exited: ${node.output}`)) : undefined),
      // Generous: six processes starting at once on a loaded machine take a while.
      120_000,
      `validator ${index} READY`,
    );
  }

  /**
   * Waits until validator `index` ends by itself (a halt, a software upgrade's stop):
   * its exit code and output.
   */
  async waitExit(index: number, timeoutMs = 60_000): Promise<{ code: number | null; output: string }> {
    const node = this.nodes[index - 1];
    const proc = node.proc;
    if (!proc) throw new Error(`validator ${index} is not running`);
    this.ending.add(proc);
    if (proc.exitCode === null) {
      await waitFor(() => (proc.exitCode !== null || proc.signalCode !== null ? true : undefined), timeoutMs, `validator ${index} to exit`);
    }
    node.proc = undefined;
    return { code: proc.exitCode, output: node.output };
  }

  signal(index: number, sig: NodeJS.Signals): void {
    this.nodes[index - 1].proc?.kill(sig);
  }

  async kill(index: number): Promise<void> {
    const proc = this.nodes[index - 1].proc;
    if (!proc || proc.exitCode !== null) return;
    const exited = new Promise((r) => proc.once('exit', r));
    this.ending.add(proc);
    proc.kill('SIGKILL');
    await exited;
    this.nodes[index - 1].proc = undefined;
  }

  async status(index: number): Promise<any> {
    const res = await fetch(`${this.nodes[index - 1].url}/status`, { signal: AbortSignal.timeout(5_000) });
    const body = (await res.json()) as { data?: any; error?: unknown };
    // An answer without data (an error envelope) says so here, not as a read of undefined later.
    if (body.data === undefined) throw new Error(`validator ${index} /status answered ${res.status} without data: ${JSON.stringify(body).slice(0, 300)}`);
    return body.data;
  }

  async height(index: number): Promise<number> {
    return (await this.status(index)).height;
  }

  async block(index: number, height: number): Promise<any> {
    const res = await fetch(`${this.nodes[index - 1].url}/block/${height}`, { signal: AbortSignal.timeout(5_000) });
    return ((await res.json()) as { data: any }).data;
  }

  /**
   * Waits until a block after `fromHeight` (as validator `via` has it) records `signer` in
   * its parent's commit: that validator votes again.
   */
  async waitForSigner(signer: string, fromHeight: number, via = 1, timeoutMs = 60_000): Promise<void> {
    let h = fromHeight + 1;
    await waitFor(
      async () => {
        while (h <= (await this.height(via))) {
          if ((await this.block(via, h)).lastCommit?.signers.includes(signer)) return true;
          h++;
        }
        return undefined;
      },
      timeoutMs,
      `a commit signed by ${signer}`,
    );
  }

  /** Waits until every listed validator has reached `height`. */
  async waitHeight(height: number, which: number[] = this.nodes.map((n) => n.index), timeoutMs = 60_000): Promise<void> {
    await waitFor(
      async () => {
        for (const i of which) if ((await this.height(i).catch(() => -1)) < height) return undefined;
        return true;
      },
      timeoutMs,
      `validators ${which.join(',')} at height ${height}`,
    );
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.nodes.map(async (n) => {
        const proc = n.proc;
        if (!proc || proc.exitCode !== null) return;
        const exited = new Promise((r) => proc.once('exit', r));
        this.ending.add(proc);
        proc.kill('SIGCONT');
        proc.kill('SIGTERM');
        const t = setTimeout(() => proc.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(t);
      }),
    );
    try {
      this.unprepare?.();
    } finally {
      this.dir.remove();
    }
  }
}
