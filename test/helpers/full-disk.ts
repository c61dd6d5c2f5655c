/**
 * A small real file system to fill (issue 26's disk-full tests): a tmpfs mounted on a
 * folder (root only: this machine and CI run as root), filled to the last byte by
 * `fill`, and unmounted by `remove`. Where mounting is refused (not root) the test fails
 * with the reason: the full tier (npm run test:all) runs as root, as CI does, and a test
 * of a full disk that quietly skipped would let a regression through.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { tempDir } from './devnet';

export interface SmallDisk {
  path: string;
  /** Writes a filler file until the disk is full; returns its path (delete it to free the space). */
  fill(): string;
  remove(): void;
}

export function mountSmallDisk(path: string, size = '64k'): SmallDisk {
  mkdirSync(path, { recursive: true });
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path], { stdio: 'pipe' });
  } catch (err) {
    const why = String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim().split('\n')[0];
    throw new Error(`mounting a ${size} tmpfs on ${path} was refused (${why}): the disk-full tests need root, as CI runs them`);
  }
  return {
    path,
    fill() {
      const filler = join(path, 'filler');
      const block = Buffer.alloc(4096, 7);
      for (let n = 0; n < 100_000; n++) {
        try {
          writeFileSync(filler, block, { flag: 'a' });
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') return filler;
          throw err;
        }
      }
      throw new Error(`${path} did not fill`);
    },
    remove() {
      execFileSync('umount', ['-l', path]);
    },
  };
}

/**
 * A temporary folder with a small disk in it for one test file: mounted before the file's
 * tests, unmounted and the folder removed after them. Read `disk` inside a test.
 */
export function smallDiskForFile(prefix: string, size?: string): { readonly path: string; readonly disk: SmallDisk } {
  const dir = tempDir(prefix);
  let disk: SmallDisk | undefined;
  beforeAll(() => {
    disk = mountSmallDisk(join(dir.path, 'disk'), size);
  });
  afterAll(() => {
    try {
      disk?.remove();
    } finally {
      dir.remove();
    }
  });
  return {
    path: dir.path,
    get disk(): SmallDisk {
      if (!disk) throw new Error('the small disk is mounted in beforeAll: read it inside a test');
      return disk;
    },
  };
}
