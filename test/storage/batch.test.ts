import { ClassicLevel } from 'classic-level';
import { afterEach, describe, expect, it } from 'vitest';
import { writeBatch, type Op } from '../../src/storage/batch';
import { tempDir } from '../helpers/devnet';

describe('writeBatch', () => {
  let cleanup: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await cleanup?.();
    cleanup = undefined;
  });

  const open = async () => {
    const dir = tempDir('batch-test-');
    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir.path, { keyEncoding: 'view', valueEncoding: 'view' });
    await db.open();
    cleanup = async () => {
      await db.close();
      dir.remove();
    };
    return db;
  };

  it('writes puts and deletes in order, as one batch', async () => {
    const db = await open();
    await writeBatch(db, [{ type: 'put', key: Uint8Array.of(1), value: Uint8Array.of(9) }, { type: 'put', key: Uint8Array.of(2), value: Uint8Array.of(8) }], true);
    const ops: Op[] = [
      { type: 'del', key: Uint8Array.of(1) },
      { type: 'put', key: Uint8Array.of(2), value: Uint8Array.of(7) },
      { type: 'put', key: Uint8Array.of(3), value: Buffer.from([6]) },
    ];
    await writeBatch(db, ops, false);
    expect(await db.get(Uint8Array.of(1))).toBeUndefined();
    expect([...(await db.get(Uint8Array.of(2)))!]).toEqual([7]);
    expect([...(await db.get(Uint8Array.of(3)))!]).toEqual([6]);
  });

  it('a bad operation writes nothing of the batch and leaves the database usable', async () => {
    const db = await open();
    const bad = [{ type: 'put', key: Uint8Array.of(5), value: Uint8Array.of(1) }, { type: 'put', key: null, value: Uint8Array.of(2) }] as unknown as Op[];
    await expect(writeBatch(db, bad, true)).rejects.toThrow();
    expect(await db.get(Uint8Array.of(5))).toBeUndefined();
    await writeBatch(db, [{ type: 'put', key: Uint8Array.of(5), value: Uint8Array.of(3) }], true);
    expect([...(await db.get(Uint8Array.of(5)))!]).toEqual([3]);
  });
});
