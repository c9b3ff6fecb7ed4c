/** The browser both end-to-end tests drive: Debian's Chromium, headless, WebGL on SwiftShader. */
import { existsSync } from "node:fs";

export const CHROMIUM = "/usr/bin/chromium";
const inCI = process.env.CI !== undefined && process.env.CI !== "" && process.env.CI !== "false";
/** Skipped (with a message) only when Chromium is missing and CI is not set: in CI a missing browser fails. */
export const skipBrowser = !existsSync(CHROMIUM) && !inCI;

export const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--use-angle=swiftshader",
  "--enable-unsafe-swiftshader",
  "--disable-background-networking",
  // the page is composited in software: SwiftShader then draws only the WebGL canvas (measured 1.2–1.5× faster)
  "--disable-gpu-compositing",
];
