/**
 * A chain database that cannot be opened says why in words an operator can act on
 * (src/storage/db.ts openFailure), with LevelDB's error kept as the cause.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { ChainStore, openFailure } from '../../src/storage/db';
import { tempDir } from '../helpers/devnet';

const dir = tempDir('exchain-open-');
afterAll(() => dir.remove());

describe('opening the chain database', () => {
  it('names a folder another node holds, and what to do', async () => {
    const first = new ChainStore(dir.path, false);
    await first.open();
    try {
      const second = new ChainStore(dir.path, false);
      const err = await second.open().then(
        () => undefined,
        (e: unknown) => e as Error & { cause?: { code?: string } },
      );
      expect(err?.message).toMatch(new RegExp(`^cannot open the chain database ${dir.path}: another process holds it .*stop the other node using this data folder, or give this one another --data-dir$`));
      expect(err?.cause?.code).toBe('LEVEL_DATABASE_NOT_OPEN');
    } finally {
      await first.close();
    }
  });

  it('turns the other LevelDB codes into a remedy', () => {
    expect(openFailure({ code: 'LEVEL_DATABASE_NOT_OPEN', cause: { code: 'LEVEL_CORRUPTION', message: 'Corruption: bad block' } })).toMatch(/corruption .*backup.*sync the chain again/);
    expect(openFailure(new Error('IO error: /x/LOCK: Permission denied'))).toMatch(/^no permission .*read and write the data folder$/);
    expect(openFailure(new Error('IO error: No space left on device'))).toMatch(/^the disk is full/);
  });
});
