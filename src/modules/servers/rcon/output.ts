/**
 * Collects a command's output as bytes (a multi-packet reply can split a UTF-8 character between
 * packets, so it is decoded once at the end) and stops at a byte cap.
 */
export class CappedOutput {
  private readonly chunks: Buffer[] = [];
  private size = 0;
  private cut = false;

  constructor(private readonly maxBytes: number) {}

  /** True once the cap was reached: the caller can stop reading. */
  get truncated(): boolean {
    return this.cut;
  }

  append(bytes: Buffer): void {
    if (this.cut) return;
    const room = this.maxBytes - this.size;
    if (bytes.length > room) {
      this.chunks.push(bytes.subarray(0, room));
      this.size += room;
      this.cut = true;
      return;
    }
    this.chunks.push(bytes);
    this.size += bytes.length;
  }

  appendText(text: string): void {
    this.append(Buffer.from(text, 'utf8'));
  }

  text(): string {
    const all = Buffer.concat(this.chunks, this.size);
    return (this.cut ? completeUtf8Prefix(all) : all).toString('utf8');
  }
}

/** `bytes` without a UTF-8 sequence left incomplete at its end by the cut. */
export function completeUtf8Prefix(bytes: Buffer): Buffer {
  let start = bytes.length - 1;
  // Walk back over continuation bytes (10xxxxxx) to the lead byte of the last sequence.
  while (start >= 0 && start > bytes.length - 4 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start--;
  if (start < 0) return bytes;
  const lead = bytes[start] ?? 0;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start + length > bytes.length ? bytes.subarray(0, start) : bytes;
}
