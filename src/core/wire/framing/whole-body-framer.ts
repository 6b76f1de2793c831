/**
 * Whole-body framing for non-streaming JSON answers and history loads: the
 * body is one frame, decided when it is complete (a JSON document cannot be
 * judged before its end).
 */
import type { Framer, RawFrame } from '../raw-frame.ts';

export class WholeBodyFramer implements Framer {
  private buffer = '';

  push(text: string): RawFrame[] {
    this.buffer += text;
    return [];
  }

  end(): RawFrame[] {
    const raw = this.buffer;
    this.buffer = '';
    return [{ raw, payload: raw }];
  }
}
