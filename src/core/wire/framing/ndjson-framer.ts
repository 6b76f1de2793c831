/** NDJSON framing: one JSON value per line (Ollama). The last line may lack its newline. */
import type { Framer, RawFrame } from '../raw-frame.ts';
import { LineSplitter } from './line-splitter.ts';

export class NdjsonFramer implements Framer {
  private readonly lines = new LineSplitter();

  push(text: string): RawFrame[] {
    return this.lines.push(text).map(frameOf);
  }

  end(): RawFrame[] {
    const rest = this.lines.end();
    return rest.length > 0 ? [frameOf(rest)] : [];
  }
}

function frameOf(raw: string): RawFrame {
  return { raw, payload: raw.replace(/\r?\n$/, '') };
}
