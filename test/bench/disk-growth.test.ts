/** The disk bench's arithmetic (bench/disk-growth.ts) on figures worked out by hand: no store. */
import { describe, expect, it } from 'vitest';
import { bytesPerBlock, bytesPerDay, bytesPerOrder, gib } from '../../bench/disk-growth';

describe('disk growth arithmetic', () => {
  it('takes per-block bytes beyond the genesis store', () => {
    // 2,000 blocks took a 10,000-byte store to 1,010,000: 500 bytes a block.
    expect(bytesPerBlock(1_010_000, 10_000, 2_000)).toBe(500);
    expect(() => bytesPerBlock(1, 0, 0)).toThrow(RangeError);
  });

  it('charges an order only what its blocks added beyond as many idle blocks', () => {
    // 200 blocks at 500 idle bytes each are 100,000 of the 1,100,000 added; 4,000 orders share the other 1,000,000.
    expect(bytesPerOrder(1_110_000, 10_000, 200, 500, 4_000)).toBe(250);
    expect(() => bytesPerOrder(1, 0, 1, 0, 0)).toThrow(RangeError);
  });

  it('grows a day by blocks/s × idle bytes plus orders/s × order bytes, 86,400 seconds', () => {
    // 50 blocks/s × 500 B = 25,000 B/s; 100 orders/s × 250 B = 25,000 B/s; 50,000 B/s a day.
    expect(bytesPerDay({ idleBytesPerBlock: 500, bytesPerOrder: 250, blocksPerSec: 50, ordersPerSec: 100 })).toBe(4_320_000_000);
    expect(bytesPerDay({ idleBytesPerBlock: 500, bytesPerOrder: 250, blocksPerSec: 50, ordersPerSec: 0 })).toBe(2_160_000_000);
    expect(gib(4_320_000_000)).toBe(4.02);
  });
});
