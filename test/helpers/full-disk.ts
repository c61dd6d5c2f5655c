/**
 * A small real file system to fill (issue 26's disk-full tests): a tmpfs mounted on a
 * folder (root only: this machine and CI run as root), filled to the last byte by
 * `fill`, and unmounted by `remove`.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface SmallDisk {
  path: string;
  /** Writes a filler file until the disk is full; returns its path (delete it to free the space). */
  fill(): string;
  remove(): void;
}

export function mountSmallDisk(path: string, size = '64k'): SmallDisk {
  mkdirSync(path, { recursive: true });
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path]);
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
