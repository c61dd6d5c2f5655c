/** WebSocket bounds: subscriptions per connection, and the slow-consumer policy. */
import { describe, expect, it } from 'vitest';
import { WsHub } from '../../src/api/routes/ws';
import { WS_MAX_BUFFERED_BYTES, WS_MAX_SUBSCRIPTIONS } from '../../src/api/limits';
import { useDevnetNode, waitFor } from '../helpers/devnet';

const devnet = useDevnetNode();

describe('websocket bounds', () => {
  it(`refuses subscription ${WS_MAX_SUBSCRIPTIONS + 1} on one connection; unsubscribe frees a slot`, async () => {
    const ws = new WebSocket(devnet.url.replace('http', 'ws') + '/ws');
    const msgs: any[] = [];
    ws.onmessage = (m) => msgs.push(JSON.parse(String(m.data)));
    await new Promise((r) => (ws.onopen = r));
    for (let i = 1; i <= WS_MAX_SUBSCRIPTIONS + 1; i++) ws.send(JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_subscribe', params: ['newHeads'] }));
    await waitFor(() => msgs.some((m) => m.id === WS_MAX_SUBSCRIPTIONS + 1) || undefined);
    const answers = msgs.filter((m) => typeof m.id === 'number');
    expect(answers.filter((m) => typeof m.result === 'string')).toHaveLength(WS_MAX_SUBSCRIPTIONS);
    const refused = answers.find((m) => m.id === WS_MAX_SUBSCRIPTIONS + 1);
    expect(refused.error.message).toMatch(/at most 32 subscriptions/);
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 100, method: 'eth_unsubscribe', params: [answers[0].result] }));
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 101, method: 'eth_subscribe', params: ['newHeads'] }));
    await waitFor(() => msgs.some((m) => m.id === 101) || undefined);
    expect(msgs.find((m) => m.id === 100).result).toBe(true);
    expect(typeof msgs.find((m) => m.id === 101).result).toBe('string');
    ws.close();
  });

  it('a consumer whose unsent data passes the bound is closed with the reason, and counted', () => {
    const hub = new WsHub();
    const closed: [number, string][] = [];
    const sent: string[] = [];
    const socket = { OPEN: 1, readyState: 1, bufferedAmount: 0, send: (d: string) => sent.push(d), close: (code: number, reason: string) => closed.push([code, reason]) };
    const client = { socket: socket as never, subs: new Map(), alive: true };
    hub.send(client as never, { a: 1 });
    expect(sent).toHaveLength(1);
    socket.bufferedAmount = WS_MAX_BUFFERED_BYTES + 1;
    hub.send(client as never, { a: 2 });
    expect(sent).toHaveLength(1);
    expect(closed).toEqual([[1008, 'slow consumer: send buffer full']]);
    expect(hub.dropped).toBe(1);
  });
});
