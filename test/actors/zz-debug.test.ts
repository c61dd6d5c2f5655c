import { it } from 'vitest';
import { Node } from '../../src/node/node';
import { nodeConfig, tempDir, waitFor } from '../helpers/devnet';
import { createLogger } from '../../src/util/log';
it('dbg', async () => {
  const dir = tempDir();
  const node = new Node(nodeConfig(dir.path), createLogger({ level: 'info', destination: '/tmp/dbg-node.log' }));
  await node.start();
  await waitFor(() => node.chain().height >= 5 || undefined, 5000, 'first blocks');
  node.actors.api.send({ type: 'committed', block: undefined as never, result: undefined as never });
  const t = Date.now();
  while (Date.now() - t < 3000) { await new Promise(r => setTimeout(r, 200)); console.log(node.actors.api.status, JSON.stringify(node.actors.api.stats)); if (node.actors.api.status === 'running' && node.actors.api.stats.restarts === 1) break; }
  await node.stop(); dir.remove();
}, 30000);
