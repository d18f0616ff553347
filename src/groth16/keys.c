/*
 * keys.c — ownership helpers for the key structs of cuzk/groth16.h. Kept
 * separate from the file readers so every producer of a key (bellperson
 * reader, zkey conversion, setup) releases it the same way.
 */
#include <stdlib.h>
#include <string.h>

#include "cuzk/groth16.h"

void cuzk_groth16_vk_free(cuzk_groth16_vk *vk)
{
    if (!vk)
        return;
    free(vk->ic);
    memset(vk, 0, sizeof *vk);
}

void cuzk_groth16_params_free(cuzk_groth16_params *pk)
{
    if (!pk)
        return;
    cuzk_groth16_vk_free(&pk->vk);
    free(pk->h);
    free(pk->l);
    free(pk->a);
    free(pk->b_g1);
    free(pk->b_g2);
    memset(pk, 0, sizeof *pk);
}
