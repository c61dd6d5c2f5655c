/**
 * The command line's view of block sync (`npm run node -- start --home`): polls the node's
 * own GET /status and reads its `sync` field ({ height, target, blocksPerSecond }). On a
 * terminal, stderr shows a progress bar redrawn in place while the node is behind; when
 * stderr is not a terminal (a log file, a service manager), one plain line every
 * PLAIN_LINE_MS instead, so logs are not flooded with redraws. A line says when the node
 * has caught up. A /status without `sync` (a node that does not report it) shows nothing.
 */
import type { StateSyncProgress } from '../chain/state-sync';

export interface SyncNumbers {
  height: number;
  target: number;
  blocksPerSecond: number;
}

/** How often the node's /status is read. */
export const POLL_MS = 500;
/** Without a terminal: one line this often while syncing. */
export const PLAIN_LINE_MS = 10_000;
const BAR_CHARS = 30;

/** The `sync` numbers of a /status answer's data, or undefined if it has none in that shape. */
export function readSync(data: unknown): SyncNumbers | undefined {
  const sync = (data as { sync?: unknown } | null | undefined)?.sync as Record<string, unknown> | null | undefined;
  if (sync === null || typeof sync !== 'object') return undefined;
  const { height, target, blocksPerSecond } = sync;
  if (typeof height !== 'number' || typeof target !== 'number') return undefined;
  return { height, target, blocksPerSecond: typeof blocksPerSecond === 'number' ? blocksPerSecond : 0 };
}

export function behind(s: SyncNumbers): boolean {
  return s.target > s.height;
}

/** e.g. `syncing [##########--------------------] 3,210/9,630 33.3% 412 blocks/s, about 16 s left` */
export function progressLine(s: SyncNumbers, bar = true): string {
  const fraction = s.target > 0 ? Math.min(1, Math.max(0, s.height / s.target)) : 1;
  const filled = Math.round(fraction * BAR_CHARS);
  const left = s.blocksPerSecond > 0 ? `, about ${formatSeconds((s.target - s.height) / s.blocksPerSecond)} left` : '';
  const gauge = bar ? ` [${'#'.repeat(filled)}${'-'.repeat(BAR_CHARS - filled)}]` : '';
  return `syncing${gauge} ${s.height.toLocaleString('en-US')}/${s.target.toLocaleString('en-US')} ${(fraction * 100).toFixed(1)}% ${Math.round(s.blocksPerSecond)} blocks/s${left}`;
}

function formatSeconds(seconds: number): string {
  if (seconds < 90) return `${Math.ceil(seconds)} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  return `${(seconds / 3600).toFixed(1)} h`;
}

/**
 * What to write for each reading: a pure step (the caller holds `state` and the clock),
 * so the display logic is tested without a terminal or a node.
 */
export function progressStep(
  state: { syncing: boolean; lastPlainMs: number },
  s: SyncNumbers | undefined,
  nowMs: number,
  tty: boolean,
): { state: { syncing: boolean; lastPlainMs: number }; write: string } {
  if (s === undefined) return { state, write: '' };
  if (behind(s)) {
    if (tty) return { state: { syncing: true, lastPlainMs: state.lastPlainMs }, write: `\r${progressLine(s)}\x1b[K` };
    const due = !state.syncing || nowMs - state.lastPlainMs >= PLAIN_LINE_MS;
    return { state: { syncing: true, lastPlainMs: due ? nowMs : state.lastPlainMs }, write: due ? `${progressLine(s, false)}\n` : '' };
  }
  if (!state.syncing) return { state, write: '' };
  const done = `synced: height ${s.height.toLocaleString('en-US')}, following the chain`;
  return { state: { syncing: false, lastPlainMs: state.lastPlainMs }, write: tty ? `\r${done}\x1b[K\n` : `${done}\n` };
}

/** Polls `${api}/status` until stopped and writes progress to `out` (process.stderr). */
export function startSyncProgress(api: string, out: NodeJS.WriteStream = process.stderr): { stop(): void } {
  let state = { syncing: false, lastPlainMs: 0 };
  let busy = false;
  const timer = setInterval(() => {
    if (busy) return;
    busy = true;
    fetch(`${api}/status`, { signal: AbortSignal.timeout(POLL_MS * 4) })
      .then((res) => res.json() as Promise<{ data?: unknown }>)
      .then((body) => {
        const step = progressStep(state, readSync(body.data), Date.now(), out.isTTY === true);
        state = step.state;
        if (step.write) out.write(step.write);
      })
      // The node is stopping or busy: the next poll tries again.
      .catch(() => {})
      .finally(() => (busy = false));
  }, POLL_MS);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}

/** State sync's numbers, as the bar shows them. */
export type StateSyncNumbers = StateSyncProgress;

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** e.g. `state sync at 12,000 [######----] chunks 40/256 15.6% 3.1/20.0 MiB from 4 peers` */
export function stateSyncLine(p: StateSyncNumbers, bar = true): string {
  const at = p.height === undefined ? '' : ` at ${p.height.toLocaleString('en-US')}`;
  switch (p.phase) {
    case 'offers':
      return `state sync: asking peers for snapshots (${p.peers} answered)`;
    case 'verifying':
      return `state sync${at}: verifying the snapshot height's header from the trusted height`;
    case 'restoring':
      return `state sync${at}: writing the head block and light anchors`;
    case 'done':
      return `state sync${at}: restored (${p.chunksTotal} chunks, ${mib(p.bytes)}); syncing the blocks after it`;
    case 'chunks': {
      const fraction = p.chunksTotal > 0 ? p.chunksDone / p.chunksTotal : 1;
      const filled = Math.round(fraction * BAR_CHARS);
      const gauge = bar ? ` [${'#'.repeat(filled)}${'-'.repeat(BAR_CHARS - filled)}]` : '';
      return `state sync${at}${gauge} chunks ${p.chunksDone}/${p.chunksTotal} ${(fraction * 100).toFixed(1)}% ${mib(p.bytes)}/${mib(p.bytesTotal)} from ${p.peers} peer${p.peers === 1 ? '' : 's'}`;
    }
  }
}

/**
 * A writer of state-sync progress to `out` (stderr): on a terminal the line redrawn in
 * place, each phase's end on its own line; otherwise one plain line per phase and, while
 * chunks arrive, one every PLAIN_LINE_MS / 2 (5 s).
 */
export function stateSyncProgressWriter(out: NodeJS.WriteStream = process.stderr, now: () => number = Date.now): (p: StateSyncNumbers) => void {
  const tty = out.isTTY === true;
  let lastPhase: string | undefined;
  let lastPlainMs = 0;
  return (p) => {
    const changed = p.phase !== lastPhase;
    if (tty) {
      out.write(`${changed && lastPhase !== undefined ? '\n' : '\r'}${stateSyncLine(p)}\x1b[K${p.phase === 'done' ? '\n' : ''}`);
    } else if (changed || now() - lastPlainMs >= PLAIN_LINE_MS / 2) {
      out.write(`${stateSyncLine(p, false)}\n`);
      lastPlainMs = now();
    }
    lastPhase = p.phase;
  };
}
