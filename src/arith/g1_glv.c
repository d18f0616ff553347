/*
 * g1_glv.c — a G1 scalar split by the curve's endomorphism (cuzk/curve.h, cuzk_g1_glv_recode).
 *
 * BLS12-381's G1 has phi(x, y) = (beta x, y) for beta a primitive cube root of unity in Fp; on the
 * r-order subgroup phi is multiplication by a cube root of unity mod r. With z the curve's parameter
 * (-0xd201000000010000) and mu = z^2 (128 bits), r = mu^2 - mu + 1, so -mu is such a root, and for
 * beta = 2^((p - 1)/3) it is phi's: phi(P) = -mu P (the other root, beta^2, gives mu - 1; the choice
 * was made by checking both against [mu]G, and test_curve checks the result). Then
 * psi(x, y) = (beta x, -y) = mu P, and k = k2 mu + k1 with k1 < mu, k2 = floor(k / mu) < mu (k < r <
 * mu^2) gives kP = k1 P + k2 psi(P): two 128-bit multiplications sharing their doublings. Each half is
 * written in non-adjacent form (no two adjacent non-zero digits, each +-1: about a third of them
 * non-zero), so a joint double-and-add costs about 128 doublings and 86 additions. The GPU's conversion
 * transform (src/gpu/coset_key.cu) multiplies this way.
 */
#include <string.h>

#include "cuzk/curve.h"

const uint64_t CUZK_G1_GLV_BETA[6] = {0x2e01fffffffefffeull, 0xde17d813620a0002ull, 0xddb3a93be6f89688ull,
                                      0xba69c6076a0f77eaull, 0x5f19672fdf76ce51ull, 0};
static const uint64_t GLV_MU[2] = {0x0000000100000000ull, 0xac45a4010001a402ull}; /* z^2 */

/* x (< 2^160, three limbs; consumed) in non-adjacent form into pos / neg. */
static void naf(uint32_t pos[5], uint32_t neg[5], uint64_t x[3])
{
    memset(pos, 0, 5 * sizeof *pos);
    memset(neg, 0, 5 * sizeof *neg);
    for (int i = 0; i < 160 && (x[0] | x[1] | x[2]); i++) {
        if (x[0] & 1) {
            if ((x[0] & 3) == 1) { /* digit +1: x -= 1 */
                pos[i >> 5] |= 1u << (i & 31);
                x[0] -= 1;
            } else { /* digit -1: x += 1 */
                neg[i >> 5] |= 1u << (i & 31);
                if (++x[0] == 0 && ++x[1] == 0)
                    x[2]++;
            }
        }
        x[0] = x[0] >> 1 | x[1] << 63;
        x[1] = x[1] >> 1 | x[2] << 63;
        x[2] >>= 1;
    }
}

void cuzk_g1_glv_recode(uint32_t pos[2][5], uint32_t neg[2][5], const uint64_t k[4])
{
    uint64_t rem[3] = {0, 0, 0}, q[4] = {0, 0, 0, 0};
    for (int i = 255; i >= 0; i--) { /* long division: rem = 2 rem + bit; rem >= mu: subtract, quotient bit */
        rem[2] = rem[2] << 1 | rem[1] >> 63;
        rem[1] = rem[1] << 1 | rem[0] >> 63;
        rem[0] = rem[0] << 1 | ((k[i >> 6] >> (i & 63)) & 1);
        if (rem[2] || rem[1] > GLV_MU[1] || (rem[1] == GLV_MU[1] && rem[0] >= GLV_MU[0])) {
            uint64_t b = rem[0] < GLV_MU[0];
            rem[0] -= GLV_MU[0];
            uint64_t b2 = rem[1] < GLV_MU[1] || (rem[1] == GLV_MU[1] && b);
            rem[1] -= GLV_MU[1] + b;
            rem[2] -= b2;
            q[i >> 6] |= 1ull << (i & 63);
        }
    }
    uint64_t k1[3] = {rem[0], rem[1], 0}, k2[3] = {q[0], q[1], q[2]};
    naf(pos[0], neg[0], k1);
    naf(pos[1], neg[1], k2);
}
