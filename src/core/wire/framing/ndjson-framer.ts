/** NDJSON framing: one JSON value per line (Ollama). The last line may lack its newline. */
import type { Framer, RawFrame } from '../raw-frame.ts';

export class NdjsonFramer implements Framer {
  private buffer = '';

  push(text: string): RawFrame[] {
    this.buffer += text;
    const frames: RawFrame[] = [];
    let start = 0;
    for (let nl = this.buffer.indexOf('\n'); nl >= 0; nl = this.buffer.indexOf('\n', start)) {
      frames.push(frameOf(this.buffer.slice(start, nl + 1)));
      start = nl + 1;
    }
    this.buffer = this.buffer.slice(start);
    return frames;
  }

  end(): RawFrame[] {
    const rest = this.buffer;
    this.buffer = '';
    return rest.length > 0 ? [frameOf(rest)] : [];
  }
}

function frameOf(raw: string): RawFrame {
  return { raw, payload: raw.replace(/\r?\n$/, '') };
}
