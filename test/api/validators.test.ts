/**
 * GET /v1/validators through real HTTP on a real node (decision 72): a solo devnet node
 * whose genesis holds four more validators of small bond that never sign. Its commits
 * carry only its own signature, so execution counts the others' misses and, past the
 * window's allowed share, jails one of them (the floor of 4 keeps the rest): the route
 * shows every validator with its bond, power, status, missed blocks and jail epoch.
 */
import { describe, expect, it } from 'vitest';
import { genesisHash } from '../../src/genesis/load';
import type { Genesis } from '../../src/genesis/types';
import { devnetGenesis, useDevnetNode, waitFor } from '../helpers/devnet';

const TOKEN = 10n ** 18n;
const BIG = 10_000_000n * TOKEN;
const SMALL = 1_000_000n * TOKEN;

const base = devnetGenesis(5).genesis;
const genesis: Genesis = {
  ...base,
  // Window 4, half allowed: the third missed height jails.
  consensus: { ...base.consensus, activeSetMin: 4, downtimeWindowBlocks: 4, downtimeMaxMissedBps: 5000 },
  validators: base.validators.map((v, i) => ({ ...v, bondWei: i === 0 ? BIG : SMALL })),
};

interface Item {
  address: string;
  name: string;
  endpoint: string;
  bond: string;
  power: string;
  status: string;
  missedBlocks: number;
  jailedUntilEpoch: number | null;
}

const devnet = useDevnetNode({ genesis, genesisHash: genesisHash(genesis) });

const get = async (path: string) => {
  const res = await fetch(`${devnet.url}${path}`);
  return { status: res.status, body: (await res.json()) as any };
};

describe('GET /v1/validators', () => {
  it('lists every validator; a validator that never signs is jailed, the floor keeps the others active and counting', async () => {
    const body = await waitFor(async () => {
      const b = (await get('/v1/validators')).body;
      return b.data.validators.some((v: Item) => v.status === 'jailed') && b.data.height >= 8 ? b : undefined;
    }, 20_000, 'a jailed validator');
    expect(body.success).toBe(true);
    expect(typeof body.timestamp).toBe('number');
    const { validators, height, epoch, downtimeWindowBlocks } = body.data as { validators: Item[]; height: number; epoch: number; downtimeWindowBlocks: number };
    expect(downtimeWindowBlocks).toBe(4);
    expect(epoch).toBe(Math.floor(height / genesis.consensus.epochLengthBlocks));
    const addresses = genesis.validators.map((v) => v.address.toLowerCase()).sort();
    expect(validators.map((v) => v.address)).toEqual(addresses);
    const byName = new Map(validators.map((v) => [v.name, v]));
    // The producer signs every commit.
    expect(byName.get('validator-1')).toEqual({
      address: genesis.validators[0].address.toLowerCase(),
      name: 'validator-1',
      endpoint: genesis.validators[0].endpoint,
      bond: String(BIG),
      power: String(BIG),
      status: 'active',
      missedBlocks: 0,
      jailedUntilEpoch: null,
    });
    const jailed = validators.filter((v) => v.status === 'jailed');
    const active = validators.filter((v) => v.status === 'active' && v.name !== 'validator-1');
    // Five candidates and a floor of 4: exactly one jailed (the first by address), the other three held.
    expect(jailed).toHaveLength(1);
    expect(jailed[0].address).toBe(addresses.filter((a) => a !== genesis.validators[0].address.toLowerCase())[0]);
    expect(jailed[0]).toMatchObject({ bond: String(SMALL - SMALL / 1000n), power: '0', missedBlocks: 0, jailedUntilEpoch: genesis.consensus.unbondingEpochs });
    expect(active).toHaveLength(3);
    for (const v of active) expect(v).toMatchObject({ bond: String(SMALL), power: String(SMALL), missedBlocks: 4 });
  });

  it('takes the network query and refuses another network', async () => {
    expect((await get(`/v1/validators?network=${genesis.network}`)).status).toBe(200);
    const wrong = await get('/v1/validators?network=mainnet');
    expect(wrong.status).toBe(400);
    expect(wrong.body).toMatchObject({ success: false, error: { code: 'WRONG_NETWORK' } });
  });
});
