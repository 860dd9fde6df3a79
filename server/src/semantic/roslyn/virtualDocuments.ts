/**
 * Virtual documents of the Roslyn host (protocol 5, `documents/source`): a source generator's
 * output (`generated:<projectKey>/…`) and a decompiled framework or package type
 * (`decompiled:<assembly>@<version>/<type>.cs`). A generated document needs its project in the
 * host's workspace: the project (and its references) is ensured first, as for a question.
 */
import { generatedPathParts } from '../../core/virtualPaths';
import { HostMethods, type SourceResult } from './hostProtocol';
import type { RoslynProvider } from './roslynProvider';

export type VirtualSource = { ok: true; result: SourceResult & { text: string } } | { ok: false; reason: string };

/** The text of a virtual path from the Roslyn host, or why it cannot be had now. Never throws. */
export async function readVirtualSource(provider: RoslynProvider, path: string, deadlineAt: number, signal: AbortSignal = new AbortController().signal): Promise<VirtualSource> {
  try {
    const waitMs = Math.max(0, deadlineAt - Date.now());
    const acquired = await provider.host.acquire(waitMs, signal);
    if (!acquired.ok) return { ok: false, reason: `the Roslyn host is ${acquired.state}: ${acquired.reason}` };
    const gen = generatedPathParts(path);
    if (gen) {
      const ensured = await provider.ensureForSource(gen.projectKey, { signal, deadline: deadlineAt, waitForReadyMs: 0 }, acquired.generation);
      if (!ensured.ok) return { ok: false, reason: ensured.reason };
    }
    const r = await provider.host.request<SourceResult>(HostMethods.documentsSource, { path, deadlineMs: Math.max(200, deadlineAt - Date.now() - 300) }, { signal, deadline: deadlineAt, generation: acquired.generation });
    if (typeof r?.text !== 'string') return { ok: false, reason: r?.reason ?? 'the Roslyn host has no such document' };
    return { ok: true, result: r as SourceResult & { text: string } };
  } catch (e) {
    return { ok: false, reason: e instanceof Error ? e.message : String(e) };
  }
}
