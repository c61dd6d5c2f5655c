/**
 * The bridge's devchain (src/bridge/devchain.ts) outlives nothing: a hardhat node whose
 * starting process was SIGKILLed (no exit handler runs) ends by itself, freeing its port,
 * so a killed launcher or test run leaves no external chain behind.
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { freePort } from '../../src/cli/launcher';
import { ROOT, waitFor } from '../helpers/devnet';

const portFree = (port: number) =>
  new Promise<boolean>((res) => {
    const srv = createServer();
    srv.once('error', () => res(false));
    srv.listen(port, '127.0.0.1', () => srv.close(() => res(true)));
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe('the devchain', () => {
  it('ends by itself when the process that started it is SIGKILLed', async () => {
    const port = await freePort();
    const script = `import { startDevChain } from './src/bridge/devchain.ts';
const c = await startDevChain({ port: ${port} });
process.stdout.write('UP ' + c.proc.pid + '\\n');
setInterval(() => undefined, 1000);`;
    const parent = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    parent.stdout!.on('data', (d) => (out += d));
    parent.stderr!.on('data', (d) => (out += d));
    try {
      const pid = Number(await waitFor(() => /UP (\d+)/.exec(out)?.[1], 60_000, `the devchain up (output: ${out})`));
      expect(alive(pid)).toBe(true);
      expect(await portFree(port)).toBe(false);
      parent.kill('SIGKILL');
      await waitFor(() => (!alive(pid) ? true : undefined), 10_000, 'the orphaned hardhat node to exit');
      await waitFor(async () => ((await portFree(port)) ? true : undefined), 5_000, 'its port free');
    } finally {
      if (parent.exitCode === null) parent.kill('SIGKILL');
    }
  }, 90_000);
});
