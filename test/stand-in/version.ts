/**
 * The version the stand-in reports everywhere (`version`, lock info, states, plans): the Terraform
 * release whose behaviour it models, marked so that no log or state mistakes it for that release.
 */
export const standInVersion = '1.11.4-standin';
