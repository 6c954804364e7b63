// ESLint flat config: the recommended and type-aware rules of
// typescript-eslint for the extension's sources and tests.
import eslint from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  { ignores: ["dist/", "out/", "out-test/", "node_modules/", "scripts/", "eslint.config.mjs"] },
  eslint.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ["./tsconfig.json", "./tsconfig.test.json"],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      eqeqeq: ["error", "always"],
      curly: "error",
    },
  },
  {
    files: ["test/**/*.ts"],
    rules: {
      // node:test's describe/it return promises the runner awaits.
      "@typescript-eslint/no-floating-promises": "off",
    },
  },
);
