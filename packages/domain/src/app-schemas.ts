// The app rules of app.ts as schemas, for the API's inputs.
import { z } from 'zod';
import { appNameChars, appTypes } from './app';
import { isStorableText, UNSTORABLE_MESSAGE } from './text';

export const appNameSchema = z
  .string()
  .trim()
  .min(appNameChars.min)
  .max(appNameChars.max)
  .refine(isStorableText, UNSTORABLE_MESSAGE);
export const appTypeSchema = z.enum(appTypes);
