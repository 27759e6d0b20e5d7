#!/usr/bin/env node
// Package bin: runs the TypeScript CLI through tsx so `npx atelier …` works from a checkout.
import { register } from 'tsx/esm/api';

register();
await import('../src/main.ts');
