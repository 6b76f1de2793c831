/**
 * DeepSeek chat web (WIRE-FORMATS.md §4): the SSE body of `POST /api/v0/chat/completion`
 * and of the endpoints that share its format (`edit_message`, `regenerate`, `continue`,
 * `resume_stream`, §4.1). The page reads it through `XMLHttpRequest.responseText`
 * (§4.4), so the rewritten body must be an append-only SSE document: frames go out
 * one for one, in order, never re-written once released (§4.5.1).
 *
 * Delta semantics (§4.3): JSON-patch-like ops `{p, o, v}` with `o` one of `APPEND`,
 * `SET`, `BATCH` (relative sub-ops) and sometimes a lower-case `add`; paths are
 * `/`-separated without a leading slash, `-1` is the last fragment. An op without
 * `p`/`o` continues the previous path (`patch-cursor.ts`); after the opening
 * `{"v":{"response":{…}}}` object or an `APPEND` to `response/fragments`, a bare
 * string goes to the last fragment's `content` (how the page and every reader of
 * the stream treat it). New fragments arrive with initial `content`.
 *
 * Guarded: the `content` of `RESPONSE` fragments and of `THINK` fragments (the
 * reasoning is shown in the page), each fragment its own channel
 * (`response:<i>`, `think:<i>`). `SEARCH` results, `TIP` and any other fragment
 * type, every status, usage, title and session event pass through byte for byte.
 *
 * A block ends the answer in DeepSeek's own shape (§4.3): `response/status` set to
 * `FINISHED` (unless a final status already went out), `event: finish`, then
 * `event: close` with `"auto_resume": false` so the page does not call
 * `resume_stream` for an unguarded copy (§4.1, §4.5.3, §8.7). `CONTENT_FILTER` is not
 * used: it makes the page withdraw the whole answer as the provider's own recall
 * (§4.3, the DeepSeeker note), which is not what happened.
 */
import { recognisers } from '../wire-recognisers.ts';
import type { JsonPath } from '../json-string-span.ts';
import { type JsonEdit } from '../json-value-edit.ts';
import { PatchCursor, joinPath } from '../patch-cursor.ts';
import type { RawFrame } from '../raw-frame.ts';
import { editSseJson } from '../sse-json-edit.ts';
import { isRecord, sseJson } from '../sse-json-render.ts';
import {
  type AdapterSession,
  type TextSlot,
  type WireAdapter,
  type WireEvent,
} from '../wire-event.ts';

/** Fragment types whose content the page shows as text, and their channel prefix. */
const GUARDED_TYPES: Readonly<Record<string, string>> = { RESPONSE: 'response', THINK: 'think' };

/** Named events of the stream (§4.3) that carry no ops. */
const KNOWN_EVENTS = new Set(['ready', 'update_session', 'title', 'finish', 'close', 'toast']);

const CONTENT = /^response\/fragments\/(-?\d+)\/content$/;
const FRAGMENT = /^response\/fragments\/(-?\d+)$/;
const FRAGMENT_TYPE = /^response\/fragments\/(-?\d+)\/type$/;

interface Fragment {
  index: number;
  type: string;
  guarded: boolean;
  segment: number;
  ended: boolean;
}

interface Effects {
  /** A final `response/status` (anything but `WIP`). */
  statusFinal?: boolean;
  finish?: boolean;
  close?: boolean;
}

class FrameBuild {
  readonly slots: TextSlot[] = [];
  readonly edits: { slot: number; path: JsonPath }[] = [];
  readonly ending = new Set<Fragment>();
  readonly effects: Effects = {};
  unrecognised: string | undefined;

  constructor(readonly carried: string[]) {}

  report(detail: string): void {
    this.unrecognised ??= `deepseek-web: ${detail}`;
  }
}

function lineEndOf(raw: string): string {
  const m = /\r\n|\r|\n/.exec(raw);
  return m === null ? '\n' : m[0];
}

function deepseekSession(): AdapterSession {
  const fragments: Fragment[] = [];
  const cursor = new PatchCursor({
    // `{"p":"…/content","v":"text"}` appends; a path-only sub-op of a BATCH sets (§4.3).
    opForPathOnly: (path, value) =>
      CONTENT.test(path) && typeof value === 'string' ? 'APPEND' : 'SET',
    pathForOpOnly: () => undefined,
  });
  let pendingEnds: string[] = [];
  let lineEnd: string | undefined;
  const effectsOf = new WeakMap<WireEvent, Effects>();
  const page = { statusFinal: false, finish: false, close: false };

  const channelOf = (f: Fragment) => {
    const name = `${GUARDED_TYPES[f.type] ?? f.type.toLowerCase()}:${f.index}`;
    return f.segment === 0 ? name : `${name}~${f.segment}`;
  };

  function endFragment(f: Fragment, b: FrameBuild): void {
    if (f.guarded && !f.ended) b.ending.add(f);
  }

  function endAll(b: FrameBuild): void {
    for (const f of fragments) endFragment(f, b);
  }

  function resolve(index: string): Fragment | undefined {
    const n = Number(index);
    return fragments[n < 0 ? fragments.length + n : n];
  }

  function feed(b: FrameBuild, f: Fragment, mode: TextSlot['mode'], text: string, path: JsonPath) {
    if (f.ended) {
      if (mode !== 'snapshot') b.report('text for a fragment that already ended');
      f.segment++;
      f.ended = false;
    }
    const slot = b.slots.push({ channel: channelOf(f), mode, text }) - 1;
    b.edits.push({ slot, path });
  }

  function typeOf(value: unknown): string {
    return typeof value === 'string' ? value.toUpperCase() : 'UNKNOWN';
  }

  function addFragment(b: FrameBuild, object: unknown, path: JsonPath): void {
    if (!isRecord(object)) {
      b.report('fragment is not an object');
      return;
    }
    // A new fragment starts: the ones before it are complete.
    endAll(b);
    const type = typeOf(object.type);
    const f: Fragment = {
      index: fragments.length,
      type,
      guarded: type in GUARDED_TYPES,
      segment: 0,
      ended: false,
    };
    fragments.push(f);
    if (f.guarded && typeof object.content === 'string') {
      feed(b, f, 'snapshot', object.content, [...path, 'content']);
    }
  }

  /** A whole fragment object at an existing index (`SET` of a fragment or the whole list). */
  function setFragment(b: FrameBuild, f: Fragment, object: unknown, path: JsonPath): void {
    if (!isRecord(object)) return;
    if (object.type !== undefined) setType(b, f, object.type);
    if (f.guarded && typeof object.content === 'string') {
      feed(b, f, 'snapshot', object.content, [...path, 'content']);
    }
  }

  function setType(b: FrameBuild, f: Fragment, value: unknown): void {
    const type = typeOf(value);
    if (type === f.type) return;
    if (!f.guarded && type in GUARDED_TYPES) {
      // Guarded from here on; what it held before was not shown as an answer.
      b.report(`fragment ${f.index} became ${type}`);
      f.guarded = true;
      f.segment++;
    }
    f.type = type;
  }

  function setFragments(b: FrameBuild, list: unknown, path: JsonPath): void {
    if (!Array.isArray(list)) return;
    list.forEach((object: unknown, k: number) => {
      const f = fragments[k];
      if (f === undefined) addFragment(b, object, [...path, k]);
      else setFragment(b, f, object, [...path, k]);
    });
    if (list.length < fragments.length) b.report('fragment list shrank');
  }

  function status(b: FrameBuild, value: unknown): void {
    if (typeof value !== 'string' || value === 'WIP') return;
    b.effects.statusFinal = true;
    endAll(b);
  }

  /** Applies one op (top-level or inside a BATCH) found at `dataPath` of the frame's JSON. */
  function apply(
    b: FrameBuild,
    path: string | undefined,
    op: string | undefined,
    value: unknown,
    dataPath: JsonPath,
  ): void {
    const o = op?.toUpperCase();
    if (o === 'BATCH') {
      if (!Array.isArray(value)) {
        b.report('BATCH without a list');
        return;
      }
      value.forEach((sub: unknown, i: number) => {
        if (!isRecord(sub) || typeof sub.p !== 'string') {
          b.report('BATCH sub-op without a path');
          return;
        }
        const subPath = joinPath(path ?? 'response', sub.p);
        const subOp =
          typeof sub.o === 'string'
            ? sub.o
            : CONTENT.test(subPath) && typeof sub.v === 'string'
              ? 'APPEND'
              : 'SET';
        apply(b, subPath, subOp, sub.v, [...dataPath, i, 'v']);
      });
      return;
    }
    if (path === 'response') {
      if (isRecord(value)) {
        setFragments(b, value.fragments, [...dataPath, 'fragments']);
        status(b, value.status);
      }
      return;
    }
    if (path === 'response/fragments') {
      if (o === 'SET') setFragments(b, value, dataPath);
      else if (Array.isArray(value))
        value.forEach((obj: unknown, k) => addFragment(b, obj, [...dataPath, k]));
      else addFragment(b, value, dataPath);
      return;
    }
    if (path === 'response/status') {
      status(b, value);
      return;
    }
    if (path === undefined) return;
    let m = CONTENT.exec(path);
    if (m !== null) {
      let f = resolve(m[1] as string);
      if (f === undefined) {
        // Text for a fragment the stream never opened (e.g. a resumed stream): guard it.
        b.report(`text for unknown fragment ${m[1] as string}`);
        f = { index: fragments.length, type: 'RESPONSE', guarded: true, segment: 0, ended: false };
        fragments.push(f);
      }
      if (!f.guarded) return;
      if (typeof value !== 'string') {
        b.report(`non-text value at ${path}`);
        return;
      }
      if (o === 'SET') feed(b, f, 'snapshot', value, dataPath);
      else if (o === 'APPEND' || o === 'ADD') feed(b, f, 'delta', value, dataPath);
      else b.report(`op ${op ?? ''} on fragment text`);
      return;
    }
    m = FRAGMENT.exec(path);
    if (m !== null) {
      const f = resolve(m[1] as string);
      if (f !== undefined && o === 'SET') setFragment(b, f, value, dataPath);
      else if (isRecord(value) && 'content' in value) b.report(`op ${op ?? ''} on a fragment`);
      return;
    }
    m = FRAGMENT_TYPE.exec(path);
    if (m !== null) {
      const f = resolve(m[1] as string);
      if (f !== undefined) setType(b, f, value);
    }
  }

  function build(frame: RawFrame, b: FrameBuild): WireEvent {
    // `ends` take effect before a frame's slots: a stream this frame feeds ends with the next one.
    const ends = [...b.carried];
    for (const f of b.ending) {
      if (f.ended) continue;
      f.ended = true;
      const channel = channelOf(f);
      if (b.slots.some((s) => s.channel === channel)) pendingEnds.push(channel);
      else ends.push(channel);
    }
    const event: WireEvent = {
      frame,
      slots: b.slots,
      render: (texts) =>
        editSseJson(
          frame,
          b.edits
            .filter((e) => texts[e.slot] !== b.slots[e.slot]?.text)
            .map((e): JsonEdit => ({ path: e.path, json: JSON.stringify(texts[e.slot]) })),
        ),
    };
    if (ends.length > 0) event.ends = ends;
    if (b.unrecognised !== undefined) event.unrecognised = b.unrecognised;
    effectsOf.set(event, b.effects);
    return event;
  }

  return {
    decode(frame: RawFrame): WireEvent {
      lineEnd ??= frame.raw.length > 0 ? lineEndOf(frame.raw) : undefined;
      const b = new FrameBuild(pendingEnds);
      pendingEnds = [];
      const sse = frame.sse;
      if (sse === undefined) return build(frame, b);
      const json = sseJson(frame);
      const isOp = isRecord(json) && ('v' in json || 'p' in json || 'o' in json);
      if (!isOp) {
        if (sse.event === 'finish' || sse.event === 'close') {
          endAll(b);
          b.effects[sse.event] = true;
        } else if (sse.event !== undefined && !KNOWN_EVENTS.has(sse.event)) {
          b.report(`event ${sse.event}`);
        } else if (sse.event === undefined && sse.data.trim() !== '[DONE]') {
          // HTTP-200 error bodies are JSON without ops (§4.3); anything else is unknown.
          if (!isRecord(json) || !('code' in json || 'type' in json)) b.report('frame without ops');
        }
        return build(frame, b);
      }
      if (sse.event !== undefined && sse.event !== 'update_session')
        b.report(`ops in event ${sse.event}`);
      const fields = json as Record<string, unknown>;
      const v = fields.v;
      let resolved = cursor.resolve(fields, v);
      if (resolved.continued) {
        if (isRecord(v) && isRecord(v.response)) {
          // The opening response object (§4.3): bare strings then go to the last fragment.
          cursor.moveTo('response', 'SET');
          apply(b, 'response', 'SET', v.response, ['v', 'response']);
          return build(frame, b);
        }
        const p = resolved.path;
        if (
          typeof v === 'string' &&
          (p === undefined || p === 'response' || p === 'response/fragments')
        ) {
          resolved = { path: 'response/fragments/-1/content', op: 'APPEND', continued: true };
        } else if (Array.isArray(v) && resolved.op?.toUpperCase() !== 'BATCH') {
          b.report('bare list without a BATCH cursor');
        }
      }
      apply(b, resolved.path, resolved.op, v, ['v']);
      return build(frame, b);
    },

    emitted(event) {
      const effects = effectsOf.get(event);
      if (effects?.statusFinal) page.statusFinal = true;
      if (effects?.finish) page.finish = true;
      if (effects?.close) page.close = true;
    },

    blockEnding() {
      if (page.close) return '';
      const nl = lineEnd ?? '\n';
      let out = '';
      if (!page.finish) {
        if (!page.statusFinal) {
          out += `data: {"p":"response/status","o":"SET","v":"FINISHED"}${nl}${nl}`;
        }
        out += `event: finish${nl}data: {}${nl}${nl}`;
      }
      return `${out}event: close${nl}data: {"click_behavior":"none","auto_resume":false}${nl}${nl}`;
    },
  };
}

export const deepseekWeb: WireAdapter = {
  ...recognisers.deepseekWeb,
  open: deepseekSession,
};
