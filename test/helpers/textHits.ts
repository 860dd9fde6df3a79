/** search_text answers group hits by file; tests read them back as one row per hit. */
export interface FlatHit {
  path: string;
  line: number;
  column: number;
  endColumn: number;
  preview: string;
  fileClass: string;
  changedSinceIndex: boolean;
  projects?: string[];
}

export function textHits(sc: { items: any[] }): FlatHit[] {
  const out: FlatHit[] = [];
  for (const g of sc.items) {
    for (const h of g.hits) {
      out.push({ path: g.path, ...h, fileClass: g.fileClass ?? 'source', changedSinceIndex: g.changedSinceIndex === true, ...(g.projects ? { projects: g.projects } : {}) });
    }
  }
  return out;
}
