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
