/**
 * Issue 24 mend: the session-and-agent listener binds 127.0.0.1 unless the operator names
 * another host (`--session-host`, both `npm start` and `start --home`): the flag reaches
 * the node's config, and the node listens where the config says.
 */
import { describe, expect, it } from 'vitest';
import { sessionApiAddress } from '../../actors/api/api-actor';
import { parseFlags } from '../../src/cli/args';
import { serviceConfig } from '../../src/cli/node-run';
import { START_HOME_FLAGS } from '../../src/cli/start-home';
import { useDevnetNode } from '../helpers/devnet';

describe('--session-host', () => {
  it('defaults to loopback', () => {
    const f = parseFlags(['--home', '/tmp/x'], START_HOME_FLAGS);
    expect(serviceConfig(f).sessionApi).toEqual({ host: '127.0.0.1', port: 9001 });
  });

  it('an explicit host is the listener\u2019s host', () => {
    const f = parseFlags(['--home', '/tmp/x', '--session-host', '0.0.0.0', '--session-port', '19001'], START_HOME_FLAGS);
    expect(serviceConfig(f).sessionApi).toEqual({ host: '0.0.0.0', port: 19001 });
  });

  describe('a node configured with another host listens there', () => {
    const ctx = useDevnetNode({ sessionApi: { host: '0.0.0.0', port: 0 } });
    it('bound to every interface, it answers on loopback', async () => {
      const address = sessionApiAddress(ctx.node.config)!;
      const port = new URL(address).port;
      const res = await fetch(`http://127.0.0.1:${port}/agent/caps?owner=0x${'11'.repeat(20)}`);
      expect(res.status).toBe(200);
      expect(ctx.node.config.sessionApi).toEqual({ host: '0.0.0.0', port: 0 });
    });
  });
});

// Shows contract [C-limits-ports] and [D-ports]: RPC and admin on the API port, 8545, on loopback (decision 189: no 9002 listener).
describe('the node ports of `start --home`', () => {
  it('default to libp2p 9000, session and agent API 9001 and REST/JSON-RPC 8545, the last two on loopback', () => {
    const f = parseFlags(['--home', '/tmp/x'], START_HOME_FLAGS);
    expect({ p2p: [f['p2p-host'], f['p2p-port']], ...serviceConfig(f) }).toMatchObject({
      p2p: ['127.0.0.1', 9000],
      api: { host: '127.0.0.1', port: 8545 },
      sessionApi: { host: '127.0.0.1', port: 9001 },
    });
  });

  describe('one listener serves REST, JSON-RPC and the admin routes', () => {
    const ctx = useDevnetNode();
    it('answers eth_chainId, /status and /metrics at the same address', async () => {
      const rpc = await fetch(ctx.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) });
      expect(((await rpc.json()) as { result: string }).result).toBe(`0x${ctx.node.config.genesis.chainId.toString(16)}`);
      expect((await fetch(`${ctx.url}/status`)).status).toBe(200);
      expect((await fetch(`${ctx.url}/metrics`)).status).toBe(200);
    });
  });
});
