/**
 * Storage failures in words (issue 41 deliver 4, decision 167): each errno code the node
 * meets on its folders becomes the cause and the operator's next step, read from node's
 * fs errors (their code) and from LevelDB's (its text); no bare code is the whole line.
 */
import { renameSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { describeFailure, storageCode, storageRefusal, storageWords, StorageRefusalError } from '../../src/storage/storage-errors';

/** A node fs error as node makes it: code, syscall, path (and dest for a rename), the code first in the message. */
function fsError(code: string, syscall: string, path: string, dest?: string): NodeJS.ErrnoException {
  const err = new Error(`${code}: some words, ${syscall} '${path}'${dest ? ` -> '${dest}'` : ''}`) as NodeJS.ErrnoException;
  Object.assign(err, { code, syscall, path, ...(dest ? { dest } : {}) });
  return err;
}

describe('storage failures in words', () => {
  it('gives every code the node meets a cause and a next step, none of them the bare code', () => {
    for (const code of ['EBUSY', 'EXDEV', 'ENOSPC', 'EDQUOT', 'EACCES', 'EPERM', 'EROFS', 'EIO', 'ENOENT', 'ENOTDIR', 'ENOTEMPTY', 'EEXIST', 'ELOOP', 'EMFILE', 'ENFILE']) {
      const w = storageWords(fsError(code, 'open', '/data/chain'), '/data/chain');
      expect(w?.code, code).toBe(code);
      expect(w!.cause.length, code).toBeGreaterThan(15);
      expect(w!.next.length, code).toBeGreaterThan(15);
      expect(w!.cause + w!.next, code).not.toContain(code);
    }
  });

  it("the issue's EBUSY on a mount point: the folder, the cause, the next step in one line", () => {
    const err = fsError('EBUSY', 'rename', '/v6/chain', '/v6/chain.corrupt-2026');
    expect(storageRefusal(err, '/v6/chain', 'cannot set the damaged store aside in')).toBe(
      'cannot set the damaged store aside in /v6/chain: the folder is busy: it is a mount point (which cannot be renamed or removed) or another process holds it (EBUSY); leave the mount in place; stop any other process using it (fuser -vm /v6/chain), then start the node again',
    );
  });

  it('reads the code from a cause chain, from the code in a message, and from LevelDB\'s own words', () => {
    expect(storageCode(new Error('write failed', { cause: fsError('ENOSPC', 'write', '/x') }))).toBe('ENOSPC');
    expect(storageCode(new Error('EXDEV: cross-device link not permitted'))).toBe('EXDEV');
    expect(storageCode(new Error('IO error: /data/chain/000012.log: No space left on device'))).toBe('ENOSPC');
    expect(storageCode(new Error('IO error: /data/chain/LOCK: Read-only file system'))).toBe('EROFS');
    expect(storageCode(new Error('IO error: /data/chain/000012.ldb: Input/output error'))).toBe('EIO');
    expect(storageCode({ code: 'LEVEL_LOCKED' })).toBe('LEVEL_LOCKED');
    expect(storageCode(new Error('something else'))).toBeUndefined();
  });

  it('names the folder in the next step where one is given', () => {
    expect(storageRefusal(fsError('ENOSPC', 'write', '/disk/chain/000005.log'), '/disk/chain')).toBe(
      '/disk/chain: the disk is full (ENOSPC); free space on that disk (df -h /disk/chain) or give the folder a larger volume',
    );
  });

  it('keeps an unknown failure\'s own message and says what to check', () => {
    expect(storageRefusal(new Error('odd'), '/d')).toBe('/d: odd; check that the folder exists, is writable and its disk has space');
  });

  it("the command line's last word: a real fs error in words, a worded refusal as it is, anything else untouched", () => {
    let real: unknown;
    try {
      renameSync('/nonexistent-exchain-folder/a', '/nonexistent-exchain-folder/b');
    } catch (err) {
      real = err;
    }
    expect(describeFailure(real)).toMatch(/^rename failed on \/nonexistent-exchain-folder\/a: the folder or a file in it does not exist \(ENOENT\); check the path/);
    expect(describeFailure(new StorageRefusalError('/d', 'STORAGE: already words'))).toBe('STORAGE: already words');
    expect(describeFailure(new Error('--height is required'))).toBe('--height is required');
  });
});
