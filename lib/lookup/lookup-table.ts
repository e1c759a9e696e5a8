export interface LookupItem {
  id: string | number;
  text: string;
  isActive: boolean;
  attributes: Record<string, unknown>;
}

export interface LookupTable {
  type: string;
  caseSensitive: boolean;
  data: LookupItem[];
}

export type LookupLoader = () => Promise<LookupTable>;
