/**
 * How long to wait before starting a replacement: `firstMs`, doubled on each death in a row, at most `maxMs`. A death
 * after the process had run for `maxMs` is not "in a row": the next wait is `firstMs` again. A supervisor that waits
 * like this keeps trying for as long as it runs (a storage outage ends, a crash loop costs little), where one that
 * counted deaths and gave up turned a brief fault into a permanent outage.
 */
export class RestartBackoff {
  private inRow = 0;

  constructor(private readonly firstMs: number, private readonly maxMs: number) {}

  /** The wait before replacing a process that ran for `ranMs`. */
  next(ranMs: number): number {
    if (ranMs >= this.maxMs) this.inRow = 0;
    const wait = Math.min(this.maxMs, this.firstMs * 2 ** Math.min(this.inRow, 30));
    this.inRow++;
    return wait;
  }

  /** Deaths in a row so far (0 once a process ran long enough). */
  get deathsInRow(): number {
    return this.inRow;
  }
}
