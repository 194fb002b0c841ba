/**
 * Generated workspaces for the sandbox cases: a tree of a given number of
 * entries with nested repositories and the protected names an agent's
 * workspace holds (`.git`, `.vscode`, `.envrc`), as a monorepo of packages.
 *
 * @module
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** What a generated tree holds. */
export interface TreeShape {
  /** Packages, each a nested repository with `.vscode` and `.envrc`. */
  packages: number;
  /** Directory entries the protected-path walk reads, about (files and folders). */
  entries: number;
}

/**
 * Makes (once: a tree already there is kept) at `root` a workspace of
 * `shape`: a root repository (`.git` with a config), then `packages/p<i>`,
 * each a nested repository (`.git/config`, `.git/HEAD`) with `.vscode/`,
 * `.envrc`, `package.json` and `src/` folders of files filling the rest of
 * the entries, three levels deep. Returns `root`.
 */
export function generatedTree(root: string, shape: TreeShape): string {
  const done = join(root, ".generated");
  if (existsSync(done)) return root;
  mkdirSync(join(root, ".git"), { recursive: true });
  writeFileSync(join(root, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n");
  writeFileSync(join(root, ".git", "HEAD"), "ref: refs/heads/main\n");
  // Each package: 9 entries of its own (its folder, .git and 2 files in it,
  // .vscode and a file in it, .envrc, package.json, src), then its files.
  const own = 9;
  const perPackage = Math.max(0, Math.floor(shape.entries / shape.packages) - own);
  for (let p = 0; p < shape.packages; p++) {
    const pkg = join(root, "packages", `p${p}`);
    mkdirSync(join(pkg, ".git"), { recursive: true });
    writeFileSync(join(pkg, ".git", "config"), "[core]\n\trepositoryformatversion = 0\n");
    writeFileSync(join(pkg, ".git", "HEAD"), "ref: refs/heads/main\n");
    mkdirSync(join(pkg, ".vscode"), { recursive: true });
    writeFileSync(join(pkg, ".vscode", "settings.json"), "{}\n");
    writeFileSync(join(pkg, ".envrc"), "export A=1\n");
    writeFileSync(join(pkg, "package.json"), `{"name":"p${p}"}\n`);
    // src/a<i>/b<j>/ with 8 files each: 1 + 8 entries a b folder, a folders of 4 b's.
    let left = perPackage;
    for (let a = 0; left > 0; a++) {
      const dirA = join(pkg, "src", `a${a}`);
      left -= 1;
      for (let b = 0; b < 4 && left > 0; b++) {
        const dirB = join(dirA, `b${b}`);
        mkdirSync(dirB, { recursive: true });
        left -= 1;
        for (let f = 0; f < 8 && left > 0; f++, left--) {
          writeFileSync(join(dirB, `f${f}.ts`), `export const x${f} = ${f};\n`);
        }
      }
    }
  }
  writeFileSync(done, "");
  return root;
}
