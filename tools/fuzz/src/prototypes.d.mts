export declare const pollutablePrototypes: Record<
  'Object' | 'Array' | 'Function' | 'String' | 'Number' | 'Boolean',
  object
>;
