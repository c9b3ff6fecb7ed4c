// Babylon logs a banner per engine and GPU-limit notices NullEngine cannot satisfy; keep test output readable.
import { Logger } from "@babylonjs/core/Misc/logger.js";

Logger.LogLevels = Logger.ErrorLogLevel;
