// Babylon before 8.53 parses a .babylon file's materials only with StandardMaterial registered (later ones skip
// what is not registered); the models' .babylon copy has materials, so the compatibility run registers it.
import "@babylonjs/core/Materials/standardMaterial.js";
